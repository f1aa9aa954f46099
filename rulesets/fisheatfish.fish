# Fish Eat Fish
#
# Written from the Spanish rulebook, the original, and an English working translation of it (neither
# is part of this repository; docs/games/fisheatfish.md tells how to play).  Lines in quotes are the
# English translation of the rulebook's words (or the Spanish itself); AMBIGUITY marks how this
# ruleset reads a sentence that can be read more than one way, and why.

game "Fish Eat Fish"

# "El morado solo se puede seleccionar cuando hay 5 jugadores" — five colours, so 2 to 5 players.
players 2 to 5

# "35 fichas de pescado apilables" — seven stackable fish tokens in each of five colours.
tokens fish: colour in red x 7, yellow x 7, green x 7, blue x 7, purple x 7

# "55 cartas" — eleven challenge cards a colour.
# AMBIGUITY (the challenge cards): the rulebook has Fish cards with numbers, a Shark and an Octopus
# but not how many of each: here each colour has the Fish cards 1 to 9, one Shark and one Octopus.
# Another reading of the 11 is the Fish cards 1 to 8, one Shark and two Octopus; a house rule
# replacing these two lines plays it.
cards fish_card: colour in red, yellow, green, blue, purple and number from 1 to 9
cards sea_card: colour in red, yellow, green, blue, purple and creature in shark, octopus

# "25 círculos" joined by lines.
# AMBIGUITY (the board): the rulebook has no picture.  This board is a square of 5 x 5 circles
# joined by the lines of its rows and columns; "en línea recta" means along one of these lines.  A
# house rule replaces it (say, adding the diagonals).
board: circles from 1 to 25
  line 1, 2, 3, 4, 5
  line 6, 7, 8, 9, 10
  line 11, 12, 13, 14, 15
  line 16, 17, 18, 19, 20
  line 21, 22, 23, 24, 25
  line 1, 6, 11, 16, 21
  line 2, 7, 12, 17, 22
  line 3, 8, 13, 18, 23
  line 4, 9, 14, 19, 24
  line 5, 10, 15, 20, 25

# ---- The numbers a table changes ------------------------------------------------------------------
# "Cada jugador coloca 5 peces." — each player places 5 fish; a house rule replaces this line
# (`replace define fish_placed_each: 4`).
define fish_placed_each: 5

# A stack of fish on each circle; "a stack moves and fights as one", its top fish tells whose it is.
the game has stack: zones from 1 to 25 of fish
the game has neutral_supply: zone of fish
the game has removed: zone of fish
the game has discard: zone
# "Estos peces se convierten en parte de la captura de ese jugador"
each player has catch: zone of fish
each player has supply: zone of fish
# "Mira tus cartas de desafío" — each player looks at their own challenge cards.
each player has secret hand: zone
each player has secret played: zone
each player has colour: one of red, yellow, green, blue, purple
each player has picked: yes or no

# "Selecciona un jugador para que sea el primero y dale a ese jugador la ficha de Estrella de mar."
# AMBIGUITY (the first player): the first seat.
the game has starfish_holder: player
the game has mover: player
the game has attacker: player
the game has defender: player
the game has attack_from: number
the game has attack_to: number
the game has passes: number


# ---- what the board shows -------------------------------------------------------------------------

define top_colour(c: number): colour of last(stack(c))
# The player a stack belongs to: the one whose colour is on top; nobody for a neutral stack.
define owner(c: number): first(players where picked and colour is top_colour(c))
define occupied: circles where count(stack(it)) > 0
define empty_circles: circles where count(stack(it)) = 0
define circles_of(p: player): circles where owner(it) is p
define on_board: players where count(circles_of(it)) > 0

# "Los peces se consideran "adyacentes" cuando están conectados por una sola línea."
define can_attack(p: player): any f in circles_of(p) where any a in adjacent(f) where count(stack(a)) > 0
# "mueve un pez a un círculo adyacente a otro pez y ataca a ese pez ... solo en línea recta, y no
#  puede saltar sobre otro pez"
define can_move_and_attack(p: player): any f in circles_of(p) where any t in slide(f, occupied) where any a in adjacent(t) where count(stack(a)) > 0 and a is not f
# "un círculo donde podría ser atacado por el pez de otro jugador durante otro turno"
# AMBIGUITY (could be attacked): by a stack of another player that is next to the circle, or that can
# slide to a circle next to it — looking at the board as it is before the move.
define attackable_at(t: number, p: player): any o in occupied where owner(o) is not nobody and owner(o) is not p and (t in adjacent(o) or any d in slide(o, occupied) where t in adjacent(d))
define can_drift(p: player): any f in circles_of(p) where any t in slide(f, occupied) where attackable_at(t, p)

# "El jugador con más peces al final del juego gana."
# AMBIGUITY (the Starfish): it is a token, not a fish, and counts only in the tie-break.
score "catch": count(your catch)

# "Desempate: el poseedor de la ficha Estrella de mar gana si está involucrado; de lo contrario, el
#  jugador con más cartas de Desafío en la mano gana."
# AMBIGUITY (ties after the tie-break): equal fish, the Starfish with none of them and as many cards
# in hand: they share the victory.
define most_fish: players with the highest count(catch)
winners: if count(most_fish) = 1 then most_fish otherwise if starfish_holder in most_fish then starfish_holder otherwise most_fish with the highest count(hand)


# ---- Setup ----------------------------------------------------------------------------------------

phase game:
  set starfish_holder to first(players)
  play colours
  play placing
  play fishing

# "cada jugador selecciona un color (pez y cartas). El morado solo se puede seleccionar cuando hay 5
#  jugadores."
phase colours:
  for each player starting with starfish_holder:
    player chooses pick_colour
  for each player:
    move fish where colour is player's colour to player's supply face up
    move fish_card where colour is player's colour to player's hand face down
    move sea_card where colour is player's colour to player's hand face down
  # "Si hay menos de 5 jugadores, el pez morado se considera neutral"
  # AMBIGUITY (too few purple fish): with 2 or 3 players seven purple fish cannot fill every empty
  # circle; the fish of every colour nobody plays are neutral too, purple ones placed first.
  move fish where colour is purple and colour not in colour of players to neutral_supply face up
  move fish where colour not in colour of players and colour is not purple to neutral_supply face up

action pick_colour(chosen: one of red or yellow or green or blue or purple):
  require "a colour of one's own": no p in players where picked and colour is chosen
  require "purple only with 5 players": chosen is not purple or count(players) = 5
  set your colour to chosen
  set your picked to yes

# "El primer jugador coloca 1 pez en cualquiera de los 25 círculos. La persona de la izquierda coloca
#  1 pez en un círculo vacío ... Cada jugador coloca 5 peces."
phase placing:
  repeat fish_placed_each times:
    for each player starting with starfish_holder:
      player chooses place
  # "el pez morado se considera neutral y debe colocarse en todos los círculos vacíos restantes"
  for each c in empty_circles:
    move first(neutral_supply) to stack(c) face up

# "no puede haber 2 peces del mismo color uno al lado del otro, a menos que no haya otra alternativa"
action place(circle: one of empty_circles):
  require "not next to your own colour unless there is no other circle": (no a in adjacent(circle) where top_colour(a) is your colour) or (every e in empty_circles where any a in adjacent(e) where top_colour(a) is your colour)
  move first(your supply) to stack(circle) face up


# ---- How to Play ----------------------------------------------------------------------------------

# "El jugador con la ficha de Estrella de mar ahora toma el primer turno."  Turns go clockwise.
phase fishing:
  set mover to starfish_holder
  repeat:
    # "El juego termina cuando solo queda pescado en el tablero a 1 jugador. Estos peces ahora se
    #  agregan a la captura de los jugadores, junto con la ficha de Estrella de mar."
    # AMBIGUITY (the Starfish at the end): "junto con la ficha de Estrella de mar" — the last
    # player on the board takes the Starfish with their fish, so it can break a tie in their favour.
    # The other reading: the Starfish stays with its holder, and only the fish go to the catch.
    # AMBIGUITY (nobody's fish left): when a tie removes the last stacks, or the last players run
    # out of cards together, no player's fish remain: the game ends too, and the Starfish stays.
    if count(on_board) <= 1:
      for each p in on_board:
        for each c in circles_of(p):
          move stack(c) to p's catch
        set starfish_holder to p
      end game
    # AMBIGUITY (a deadlock): when for a whole round of turns nobody can do anything, the game ends
    # and the fish on the board join their owners' catches; the Starfish stays with its holder, as
    # no single last player takes it.
    if passes >= count(on_board):
      for each p in on_board:
        for each c in circles_of(p):
          move stack(c) to p's catch
      end game
    if count(circles_of(mover)) > 0:
      play turn for mover
    set mover to left of mover

# "Use un pez para hacer uno, y solo uno, de los siguientes"
# `passes` counts the turns in a row in which nobody could do anything: a player who acts starts
# the count again, one who cannot adds to it (the deadlock rule of phase fishing reads it).
phase turn for fisher:
  if can_attack(fisher) or can_move_and_attack(fisher):
    set passes to 0
    fisher chooses attack or move_and_attack
  otherwise if can_drift(fisher):
    set passes to 0
    # "Si no es posible 1 o 2: luego mueve un pez a un círculo donde podría ser atacado por el pez de
    #  otro jugador durante otro turno y pasa la ficha de Estrella de mar a la izquierda."
    fisher chooses drift
  otherwise:
    # AMBIGUITY (nothing possible at all): the player passes.
    add 1 to passes

# "Atacar un pez: ataca a un pez ubicado en un círculo adyacente sin mover ningún pez."
action attack(from: one of circles_of(you), target: one of adjacent(from)):
  require "a fish to attack": count(stack(target)) > 0
  set attack_from to from
  set attack_to to target
  play fight for you

# "Mover un pez: mueve un pez a un círculo adyacente a otro pez y ataca a ese pez. ... Solo puede
#  mover su propio pez, solo en línea recta, y no puede saltar sobre otro pez."
action move_and_attack(from: one of circles_of(you), to: one of slide(from, occupied), target: one of adjacent(to)):
  require "a fish to attack": count(stack(target)) > 0 and target is not from
  move stack(from) to stack(to)
  set attack_from to to
  set attack_to to target
  play fight for you

action drift(from: one of circles_of(you), to: one of slide(from, occupied)):
  require "where another player could attack it": attackable_at(to, you)
  move stack(from) to stack(to)
  set starfish_holder to left of starfish_holder

phase fight for fighter:
  set attacker to fighter
  set defender to owner(attack_to)
  # "Si el pez es neutral o del mismo color que el pez atacante: no se utilizan cartas de desafío. El
  #  jugador simplemente coloca peces atacantes encima de otros peces."
  if defender is nobody or defender is attacker:
    move stack(attack_from) to stack(attack_to)
  otherwise:
    play challenge
  play out_of_cards


# ---- Attacking a fish -----------------------------------------------------------------------------

# "cada jugador selecciona 1 Carta de Desafío de su mano y la coloca, boca abajo, sobre la mesa.
#  Simultáneamente, las cartas se ponen boca arriba y se determina el resultado."
phase challenge:
  each of players where it is attacker or it is defender secretly chooses challenge_card
  reveal attacker's played
  reveal defender's played
  play battle
  # "descarta las cartas de desafío como de costumbre"
  move attacker's played to discard face up
  move defender's played to discard face up

action challenge_card(card: one of your hand):
  move card to your played face down

define attack_creature: creature of first(attacker's played)
define defence_creature: creature of first(defender's played)
# "agregue # de peces en la pila a la tarjeta, gana el número más alto"
define attack_total: number of first(attacker's played) + count(stack(attack_from))
define defence_total: number of first(defender's played) + count(stack(attack_to))

# AMBIGUITY (where the stacks end up): the winner's stack is placed on top of the loser's, on the
# loser's circle — "coloque el pescado encima de la pila" — whether the winner attacked or defended.
# AMBIGUITY (a cancelled move-and-attack): the move stands; only the attack is cancelled ("ningún pez
# se ve afectado").
phase battle:
  # "1 o ambos seleccionan la carta Pulpo: el ataque se anula, ningún pez se ve afectado"
  if attack_creature is octopus or defence_creature is octopus:
    end battle
  # "Ambas cartas de Tiburón seleccionadas: se considera un empate y ambas pilas se eliminan del juego"
  if attack_creature is shark and defence_creature is shark:
    play both_removed
    end battle
  # "1 carta de Tiburón y 1 carta de Pez: gana la carta de Tiburón."
  if attack_creature is shark:
    move stack(attack_from) to stack(attack_to)
    end battle
  if defence_creature is shark:
    move stack(attack_to) to stack(attack_from)
    end battle
  # "Ambas tarjetas de pescado seleccionadas ... Si hay un empate, ambas pilas de pescado se
  #  eliminan del juego."
  if attack_total > defence_total:
    move stack(attack_from) to stack(attack_to)
  otherwise if attack_total < defence_total:
    move stack(attack_to) to stack(attack_from)
  otherwise:
    play both_removed

phase both_removed:
  move stack(attack_from) to removed
  move stack(attack_to) to removed

# "si un jugador no tiene cartas de Desafío, ese jugador debe eliminar todas las pilas restantes de
#  peces del tablero. Estos peces se convierten en parte de la captura de ese jugador ... Ese jugador
#  no puede participar en más batallas."
# AMBIGUITY (out of challenge cards): the player's stacks, whatever colours they hold, go to their
# catch at once, after the fight that used the last card.
phase out_of_cards:
  for each p in players:
    if count(p's hand) = 0:
      for each c in circles_of(p):
        move stack(c) to p's catch


# ---- How a table words it -------------------------------------------------------------------------
# What a table (fishrules serve) calls things; the game is the same without it.
presentation:
  about: "A board game of bluff. Each player places five fish on the circles; a stack belongs to the colour on top. In your turn one of your stacks attacks a stack next to it, or slides along a line and attacks."
  about: "Against another player both choose a challenge card in secret: Fish cards add their stack's height and the higher wins, a Shark beats a Fish, an Octopus cancels the attack; the winner's stack goes on top. When one player is left on the board, the most fish caught wins."
  value stack: "circle", "the fish standing on each circle of the board"
  value neutral_supply: "neutral fish", "the colours nobody plays"
  value removed: "removed", "fish taken off the board"
  value discard: "played cards", "challenge cards already played"
  value starfish_holder: "starfish", "who holds the starfish: it breaks a tie for the most fish"
  value mover: hidden
  value attacker: "attacker"
  value defender: "defender"
  value attack_from: "attacking from circle"
  value attack_to: "attacked circle"
  value passes: "passes in a row"
  value catch: "catch", "fish eaten"
  value supply: "fish to place"
  value hand: "challenge cards"
  value played: "challenge card played", "face down until both have chosen"
  value colour: "colour"
  value picked: hidden
  action pick_colour: "pick a colour", "the colour of your fish"
  action pick_colour chosen: "colour"
  log pick_colour: "{player} picks {chosen}"
  action place: "place a fish", "on an empty circle"
  action place circle: "circle"
  log place: "{player} places a fish on circle {circle}"
  action attack: "attack", "a stack of yours attacks the stack next to it"
  action attack from: "from circle"
  action attack target: "circle attacked"
  log attack: "{player} attacks circle {target} from circle {from}"
  action move_and_attack: "move and attack", "slide a stack of yours in a straight line, then attack"
  action move_and_attack from: "from circle"
  action move_and_attack to: "to circle"
  action move_and_attack target: "circle attacked"
  log move_and_attack: "{player} moves from circle {from} to circle {to} and attacks circle {target}"
  action drift: "drift", "slide a stack of yours in a straight line, without attacking"
  action drift from: "from circle"
  action drift to: "to circle"
  log drift: "{player} drifts from circle {from} to circle {to}"
  action challenge_card: "play a challenge card", "chosen in secret; both are shown together"
  action challenge_card card: "card"
  log challenge_card: "{player} plays {card}"
  phase both_removed: "both removed"
  phase out_of_cards: "out of cards"
