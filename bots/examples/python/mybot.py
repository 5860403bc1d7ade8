from protocol.sdk import run

def act(observation, legal):
    # observation: the wire-form dict of docs/WIRE.md; legal: the legal actions (canonical order)
    takes = [a for a in legal if a.kind == "take"]
    return takes[0] if takes else legal[0]

if __name__ == "__main__":
    raise SystemExit(run(act, name="stubborn"))
