"""Plays durak and kazaki with the cheapest cards it can: low ranks first, trumps last; takes or passes last."""

from protocol.sdk import run


def act(observation, legal):
    trump = observation["trump"]

    def cost(action):
        mine = action.cards[1:] if action.kind == "defend" else action.cards  # defend(a,c): c is mine
        if not mine:
            return 1000  # take, pass
        return sum(card.rank + 100 * (card.suit == trump) for card in mine) / len(mine)

    return min(legal, key=cost)


if __name__ == "__main__":
    raise SystemExit(run(act, name="lowest", games=["durak", "kazaki"]))
