# Fisherman
#
# Written from the Fisherman rulebook (not part of this repository; docs/games/fisherman.md tells
# how to play).  Lines in quotes are the
# rulebook's own words; AMBIGUITY marks how this ruleset reads a sentence that can be read more than
# one way, and why.

game "Fisherman"

# "In a 3 player game, use 4 of the suits (do not use squid); in a 4 player game, use all of the
#  cards."
players 3 to 4

# "50 fish cards (1 to 10 in each of five suits, horse mackerel/blue, puffer fish/green, sea
#  bream/red, goby/yellow, squid/white)"
cards fish: suit in horse_mackerel, puffer_fish, sea_bream, goby, squid and number from 1 to 10

# "The player who most recently caught a fish, or any appropriate player, becomes the first dealer
#  and takes the big catch card."  AMBIGUITY: the table seats that player first.
# ---- The numbers a table changes ------------------------------------------------------------------
# Each is one line for a house rule to replace, as in `replace define deals_each: 2`.

# "The game lasts a number of rounds equal to the number of players; each player will be the dealer
#  once."
define deals_each: 1
# "gold shield card (worth 5 VPs) ... silver shield card (3 VPS) ... bronze (1 VP)"
define gold_shield: 5
define silver_shield: 3
define bronze_shield: 1

the game has dealer: player
the game has leader: player
the game has hand_size: number

the game has hidden deck: zone of fish
# Cards out of play: the squid in a 3 player game, and "Any extra fish cards are not used ...
# return these to the box face down."
the game has hidden box: zone of fish
# "The players may look at the cards they have been dealt."
each player has secret hand: zone of fish
# The card each player has put on the current trick, face up.
each player has played: zone of fish
# "leave your acquired cards face up in front of you"
each player has catch: zone of fish

# The rule mat: "the four rules which will be applied in the fishing phase".
the game has rules_decided: number
the game has target: one of horse_mackerel, puffer_fish, sea_bream, goby, squid
the game has valuation: one of large, small
# "The player chooses two consecutive numbers": the smaller one; the Size is it and the next.
the game has size_low: number
the game has not_target: one of horse_mackerel, puffer_fish, sea_bream, goby, squid

each player has round_points: number
# Shields: "gold shield card (worth 5 VPs) ... silver shield card (3 VPS) ... bronze (1 VP)"
each player has vp: number

score "victory points": your vp

# "The player with the most VPs after all rounds are complete is the world's number one angler! (In
#  the case of a tie, share the victory.)"
winners: players with the highest score


# ---- Game Progression -----------------------------------------------------------------------------

# "The game lasts a number of rounds equal to the number of players; each player will be the dealer
#  once."
phase game:
  set dealer to first(players)
  repeat deals_each * count(players) times:
    play tournament
    # "pass the big catch card to the left; they become the dealer of the next round."
    set dealer to left of dealer

# AMBIGUITY (when the table is tidied): "Clear the fish tokens off of the rule mat" ends a round; here
# it is done as the next round begins, so the last round's catches and rule mat stay on the table
# for everybody to see at the end of the game.  Nothing else differs.
phase tournament:
  play tidy_up
  play distribution
  play rule_decision
  play fishing
  play results

# "The dealer shuffles all the fish cards, face down, and deals them equally to the players. Any
#  extra fish cards are not used (one in a 3P game and two in a 4P game); return these to the box
#  face down."
phase distribution:
  move fish to deck face down
  if count(players) = 3:
    move deck where suit is squid to box
  shuffle deck
  set hand_size to divide(count(deck), count(players))
  for each player starting with left of dealer:
    draw hand_size from deck to player's hand
  move deck to box face down
  set rules_decided to 0


# ---- Rule Decision Phase --------------------------------------------------------------------------

# "Beginning with the player to the left of the dealer, each player decides one rule at a time in
#  clockwise order and proceeding down the rule mat; that is, the first player to select will always
#  choose the Target, the second player the Valuation, etc. (In a 3P game, the second player to
#  decide will decide both the Valuation and Size at the same time.)"
phase rule_decision:
  left of dealer chooses choose_target
  if count(players) = 4:
    left of left of dealer chooses choose_valuation
    left of left of left of dealer chooses choose_size
  otherwise:
    left of left of dealer chooses choose_valuation_and_size
  # the last to decide is the dealer: the fourth player of four, the third of three
  dealer chooses choose_not_target

# The suits being played with: squid is out of a 3 player game.
define suits_in_play: suit of (fish where it not in box)

# "Target. Each card collected of the corresponding suit is worth 1 point. The player should choose
#  one suit"
action choose_target(suit_chosen: one of suits_in_play):
  set target to suit_chosen
  add 1 to rules_decided

# "Valuation. Which size fish are to be considered stronger: large or small?"
action choose_valuation(strength: one of large or small):
  set valuation to strength
  add 1 to rules_decided

# "Size. ... The player chooses two consecutive numbers (you cannot choose other pairs of numbers,
#  such as 3 and 5 or 1 and 10)."  `choose_size 3` chooses 3 and 4.
action choose_size(smaller: a number from 1 to 9):
  set size_low to smaller
  add 1 to rules_decided

action choose_valuation_and_size(strength: one of large or small, smaller: a number from 1 to 9):
  set valuation to strength
  set size_low to smaller
  add 2 to rules_decided

# "Not Target. ... The Not Target suit may not be the same suit as the Target suit."
action choose_not_target(suit_chosen: one of suits_in_play):
  require "Not Target differs from Target": suit_chosen is not target
  set not_target to suit_chosen
  add 1 to rules_decided


# ---- Fishing Phase --------------------------------------------------------------------------------

# "The dealer is the lead player for the first trick"
phase fishing:
  set leader to dealer
  repeat hand_size times:
    play trick

define lead_suit: suit of first(leader's played)

# "Beginning with the player to their left, each other player then plays a card face up in
#  clockwise turn order."
phase trick:
  for each player starting with leader:
    player chooses play_card
  # "The winner of one trick will acquire all cards played to the trick and lead to the next trick."
  set leader to first(players with the highest trick_strength)
  for each player:
    move player's played to leader's catch face up

# "If a player has a card of the same suit as that played by the start player, they must choose one
#  of those cards to play. Otherwise, a player may play any card."
# AMBIGUITY (trumping when void): a player without the lead suit may play any card, the Not Target
# suit included or not; nothing obliges them to play it.
action play_card(card: one of your hand):
  require "follow the lead suit": you is leader or suit of card is lead_suit or no c in your hand where suit is lead_suit
  move card to your played face up

# "check Valuation to determine if low or high numbers are stronger"
define card_strength: if valuation is large then number of first(your played) otherwise 11 - number of first(your played)

# "The player who played the strongest ... of the Not Target suit wins the trick. If no cards of the
#  Not Target suit were played, the strongest card of the lead suit wins the trick."
# ("The Not Target suit is stronger than all other suits.")  A card of neither suit cannot win.
define trick_strength: if suit of first(your played) is not_target then 100 + card_strength otherwise if suit of first(your played) is lead_suit then card_strength otherwise 0


# ---- Announce Tournament Results ------------------------------------------------------------------

# "Target. Each card collected of the corresponding suit is worth 1 point."
# "Not Target. Each fish of the selected suit will be worth -1 point."
# "Size. ... Each fish of the selected sizes are worth -1 point if of the Not Target suit and +1
#  point for all other suits."  ("A card which matches the chosen size and is the Not Target suit is
#  worth -2 points.")
# AMBIGUITY (a Target card of the Size): the points add up, +1 for the Target and +1 for the Size:
# +2, as a Not Target card of the Size adds up to -2.
define target_points: count(your catch where suit is target)
define not_target_points: count(your catch where suit is not_target)
define size_points: count(your catch where (number = size_low or number = size_low + 1) and suit is not not_target)
define size_penalty: count(your catch where (number = size_low or number = size_low + 1) and suit is not_target)
define points_this_round: target_points - not_target_points + size_points - size_penalty

# "The player with the most points takes a gold shield card (worth 5 VPs); the player with the
#  second most points takes a silver shield card (3 VPS); the third most bronze (1 VP); and the
#  fourth most does not get a shield. (Players do not have to have won any tricks to earn a shield
#  card.)"
# "If players are tied, they each are considered to have earned that rank and the next position is
#  skipped. (e.g. If two players are tied for second, no player is awarded third; the next possible
#  position is fourth.)"
# AMBIGUITY (the shield supply): "40 shield cards (10 each of gold, silver, and bronze)" adds up to
# 30; either way the supply never limits the awards — ties get a shield each.
define place: 1 + count(players where round_points > your round_points)
define shield: if place = 1 then gold_shield otherwise if place = 2 then silver_shield otherwise if place = 3 then bronze_shield otherwise 0

phase results:
  for each player:
    set player's round_points to player's points_this_round
  for each player:
    add player's shield to player's vp

# "Clear the fish tokens off of the rule mat."
phase tidy_up:
  move fish to box face down
  set rules_decided to 0
  clear target
  clear valuation
  clear not_target
  set size_low to 0


# ---- How a table words it -------------------------------------------------------------------------
# What a table (fishrules serve) calls things; the game is the same without it.
presentation:
  about: "A trick-taking card game. Each round the players choose its rules in turn: the Target suit (+1 a card), the Valuation (do large or small numbers win?), the Size (two numbers in a row, +1 a card) and the Not Target suit (-1 a card, but it beats every other suit)."
  about: "Then tricks are played: follow the suit led if you can; the best Not Target card wins the trick, else the best card of the suit led. The round's points give gold (5), silver (3) and bronze (1) shields; the most victory points wins."
  value dealer: "dealer"
  value leader: "leads the trick"
  value hand_size: "cards dealt each"
  value deck: "deck"
  value box: "box", "cards out of play"
  value rules_decided: hidden
  value target: "Target", "the suit each card of which scores a point"
  value valuation: "Valuation", "large: the higher number wins a trick; small: the lower"
  value size_low: "Size (the smaller)", "the Size is this number and the next: a card of either scores a point"
  value not_target: "Not Target", "the suit that beats every other, but costs a point per card"
  value hand: "hand"
  value played: "on the trick"
  value catch: "catch", "the tricks taken this round"
  value round_points: "points this round"
  value vp: "victory points", "from the shields of the rounds played"
  action choose_target: "choose the Target", "the suit that scores a point a card"
  action choose_target suit_chosen: "suit"
  log choose_target: "{player} makes {suit_chosen} the Target"
  action choose_valuation: "choose the Valuation", "large: the higher number wins; small: the lower"
  action choose_valuation strength: "valuation"
  log choose_valuation: "{player} chooses the {strength} Valuation"
  action choose_size: "choose the Size", "two numbers in a row: the smaller is chosen"
  action choose_size smaller: "the smaller number"
  log choose_size: "{player} chooses the Size {smaller}"
  action choose_valuation_and_size: "choose Valuation and Size", "both at once, with two players"
  action choose_valuation_and_size strength: "valuation"
  action choose_valuation_and_size smaller: "the smaller number of the Size"
  log choose_valuation_and_size: "{player} chooses the {strength} Valuation and the Size {smaller}"
  action choose_not_target: "choose the Not Target", "the suit that beats all, but costs a point a card"
  action choose_not_target suit_chosen: "suit"
  log choose_not_target: "{player} makes {suit_chosen} the Not Target"
  action play_card: "play a card", "follow the lead suit if you can"
  action play_card card: "card"
  log play_card: "{player} plays {card}"
  phase rule_decision: "deciding the rules"
  phase tidy_up: "tidying up"
