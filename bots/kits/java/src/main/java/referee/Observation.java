package referee;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What the seat sees (docs/WIRE.md, "Observations in every game"): the keys every game has, typed, and {@link #raw()},
 * the whole observation as the request carried it, with each game's own keys ({@code get("table")} in durak).
 * Values are decoded as: null, Boolean, Long (BigInteger beyond the long range), Double, String, List, Map, byte[].
 */
public final class Observation {
    private final Map<String, Object> raw;
    private List<Card> hand;

    Observation(Map<String, Object> raw) {
        this.raw = raw;
    }

    /** The whole observation: key → value. */
    public Map<String, Object> raw() {
        return raw;
    }

    /** One key's value (null when it is null or absent). */
    public Object get(String key) {
        return raw.get(key);
    }

    /** The game id: "durak", "kazaki", "kozel", … */
    public String game() {
        return string(raw.get("game"));
    }

    /** The seat this observation is for. */
    public int seat() {
        return integer(raw.get("seat"), -1);
    }

    /** The number of players. */
    public int seats() {
        return integer(raw.get("seats"), 0);
    }

    /** The phase of the game, like "attack" or "defend". */
    public String phase() {
        return string(raw.get("phase"));
    }

    /** The seat's own hand, canonical order. */
    public List<Card> hand() {
        if (hand == null) {
            hand = cards(raw.get("hand"));
        }
        return hand;
    }

    /** Every player's card count, by seat. */
    public List<Integer> handSizes() {
        List<Integer> sizes = new ArrayList<>();
        for (Object size : list(raw.get("hand_sizes"))) {
            sizes.add(integer(size, 0));
        }
        return sizes;
    }

    /** The trump suit; "none" for no-trump; null where the game has none yet. */
    public String trump() {
        return string(raw.get("trump"));
    }

    /** The events since the seat's previous request, each a map with a "type". */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> events() {
        List<Map<String, Object>> events = new ArrayList<>();
        for (Object event : list(raw.get("events"))) {
            if (event instanceof Map<?, ?> map) {
                events.add((Map<String, Object>) map);
            }
        }
        return events;
    }

    @Override
    public String toString() {
        return raw.toString();
    }

    // ---------------------------------------------------------------------------------------- reading raw values

    /** A value as an int ({@code otherwise} when it is not an integer). */
    public static int integer(Object value, int otherwise) {
        return value instanceof Long n ? n.intValue() : otherwise;
    }

    /** A value as a String (null when it is not one). */
    public static String string(Object value) {
        return value instanceof String s ? s : null;
    }

    /** A value as a list (empty when it is not one). */
    @SuppressWarnings("unchecked")
    public static List<Object> list(Object value) {
        return value instanceof List<?> l ? (List<Object>) l : Collections.emptyList();
    }

    /** A value as a map (empty when it is not one). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Collections.emptyMap();
    }

    /** A list of card texts as Cards (items that are not cards are left out). */
    public static List<Card> cards(Object value) {
        List<Card> cards = new ArrayList<>();
        for (Object item : list(value)) {
            if (item instanceof String text && Card.isCard(text)) {
                cards.add(Card.parse(text));
            }
        }
        return cards;
    }
}
