// Starts `fishrules lsp` (the language server of the fishrules[lsp] extra) for fishrules documents.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("fishrules").get("command");
  client = new LanguageClient(
    "fishrules", "fishrules",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "fishrules" }] },
  );
  client.start();
  context.subscriptions.push(client);
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
