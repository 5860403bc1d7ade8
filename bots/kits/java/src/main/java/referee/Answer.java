package referee;

/**
 * An action with a note on why: the note goes out as the reply's {@code debug} (docs/PROTOCOL.md 5.6), and the
 * replay viewer shows it beside the decision. It changes nothing in the game.
 */
public record Answer(Action action, String note) implements Choice {
}
