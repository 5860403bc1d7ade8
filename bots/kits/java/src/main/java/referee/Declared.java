package referee;

import java.util.List;
import java.util.Map;

/**
 * What the bot's hello says it plays (docs/PROTOCOL.md 5.2): game ids (null: any game), seat counts (null: every
 * one, not sent) and, by game, option values (null: not sent), like {@code Map.of("durak", Map.of("transfer",
 * List.of(true)))}.
 */
public record Declared(List<String> games, List<Integer> seats, Map<String, Map<String, List<Object>>> options) {
    /** Plays anything. */
    public static Declared any() {
        return new Declared(null, null, null);
    }

    /** Plays these games only. */
    public static Declared games(String... games) {
        return new Declared(List.of(games), null, null);
    }
}
