package referee;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One card (docs/WIRE.md, Cards). {@code rank} is numeric: 2 to 14 for the standard deck (J=11, Q=12, K=13, A=14),
 * 0 to 9 for the Cossacks-Robbers deck of kazaki; {@code suit} is the suit letter; {@code text} the wire form, "10D".
 */
public record Card(int rank, String suit, String text) {
    private static final Map<String, Card> PARSED = new ConcurrentHashMap<>();

    /** "10D" → Card(10, "D", "10D"); the suit is always the last character. */
    public static Card parse(String text) {
        Card card = PARSED.get(text);
        if (card == null) {
            card = read(text);
            PARSED.put(text, card);
        }
        return card;
    }

    private static Card read(String text) {
        if (text == null || text.length() < 2) {
            throw new IllegalArgumentException("invalid card: " + text);
        }
        String rank = text.substring(0, text.length() - 1);
        String suit = text.substring(text.length() - 1);
        if ("KRTF".contains(suit) && rank.length() == 1 && Character.isDigit(rank.charAt(0))) {
            return new Card(rank.charAt(0) - '0', suit, text);
        }
        if ("CDHS".contains(suit)) {
            switch (rank) {
                case "J": return new Card(11, suit, text);
                case "Q": return new Card(12, suit, text);
                case "K": return new Card(13, suit, text);
                case "A": return new Card(14, suit, text);
                case "2", "3", "4", "5", "6", "7", "8", "9", "10": return new Card(Integer.parseInt(rank), suit, text);
                default: break;
            }
        }
        throw new IllegalArgumentException("invalid card: " + text);
    }

    /** Whether {@code text} is a card. */
    public static boolean isCard(String text) {
        try {
            parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
