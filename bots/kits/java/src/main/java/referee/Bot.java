package referee;

import java.util.Map;

/** A bot as an object, for one that keeps state between requests or games. */
public abstract class Bot {
    /** The last game's info (set by the default {@link #newGame}). */
    protected GameInfo info;

    /** The name of the bot's hello. */
    public abstract String name();

    /** A game starts. */
    public void newGame(GameInfo info) {
        this.info = info;
    }

    /** One request: return one of {@code decision.legal()}, or an {@link Answer} with a note. */
    public abstract Choice act(Decision decision);

    /** The game's result (docs/WIRE.md, "The result object"). */
    public void gameOver(Map<String, Object> result) {
    }

    /** The referee said bye. */
    public void close() {
    }
}
