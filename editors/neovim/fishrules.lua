-- fishrules in Neovim (0.10+): put this file in ~/.config/nvim/plugin/ (or require it).
-- `.fish` is the fish shell's extension too: only the .fish files of a rules folder are fishrules.
vim.filetype.add({
  pattern = {
    [".*/rulesets/.*%.fish"] = "fishrules",
    [".*/house%-rules/.*%.fish"] = "fishrules",
  },
})

vim.api.nvim_create_autocmd("FileType", {
  pattern = "fishrules",
  callback = function(args)
    vim.bo[args.buf].commentstring = "# %s"
    vim.bo[args.buf].shiftwidth = 2
    vim.bo[args.buf].expandtab = true
    vim.lsp.start({
      name = "fishrules",
      cmd = { "fishrules", "lsp" },
      root_dir = vim.fs.dirname(vim.api.nvim_buf_get_name(args.buf)),
    })
  end,
})
