package referee;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One action (docs/WIRE.md, Actions): "defend(7D,8D)" has kind "defend", args ["7D", "8D"] and cards [7D, 8D];
 * "take" has kind "take" and no args. {@link #text()} is the wire form: answer with one of the legal actions.
 */
public final class Action implements Choice {
    private static final Map<String, Action> PARSED = new ConcurrentHashMap<>();

    private final String text;
    private final String kind;
    private final List<String> args;
    private final List<Card> cards;

    private Action(String text, String kind, List<String> args, List<Card> cards) {
        this.text = text;
        this.kind = kind;
        this.args = args;
        this.cards = cards;
    }

    /**
     * Reads an action's text form. An argument that is no card stays text, and a text not of the form kind(args) is
     * an action of that kind without arguments: a future action parses, and a bot can still answer with its text.
     */
    public static Action parse(String text) {
        Action action = PARSED.get(text);
        if (action == null) {
            action = read(text);
            if (PARSED.size() < 50_000) {
                PARSED.put(text, action);
            }
        }
        return action;
    }

    private static Action read(String text) {
        int open = text.indexOf('(');
        if (open <= 0 || !text.endsWith(")")) {
            return new Action(text, text, List.of(), List.of());
        }
        List<String> args = List.of(text.substring(open + 1, text.length() - 1).split(",", -1));
        List<Card> cards = new ArrayList<>();
        for (String arg : args) {
            if (Card.isCard(arg)) {
                cards.add(Card.parse(arg));
            }
        }
        return new Action(text, text.substring(0, open), args, List.copyOf(cards));
    }

    /** The wire form, like "defend(7D,8D)". */
    public String text() {
        return text;
    }

    /** The kind, like "defend" or "take". */
    public String kind() {
        return kind;
    }

    /** Every argument, as text: cards, numbers (seats, tricks), suit letters or "none". */
    public List<String> args() {
        return args;
    }

    /** The arguments that are cards, in order. */
    public List<Card> cards() {
        return cards;
    }

    /** Argument {@code i} as a number (exchange(2), bargain(1)). */
    public int intArg(int i) {
        return Integer.parseInt(args.get(i));
    }

    /** This action itself (an Action is its own {@link Choice}). */
    @Override
    public Action action() {
        return this;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Action a && a.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
