package referee;

import java.util.List;
import java.util.Map;

/**
 * A game starts (new_game, docs/PROTOCOL.md 5.4): the game, every option with its value (defaults filled in), the
 * seat, the number of seats, the teams (null outside team games), {@code botSeed} (an unsigned 64-bit seed for the
 * bot's own randomness, in a long: {@link Long#toUnsignedString(long)} prints it) and the game's number.
 */
public record GameInfo(String game, Map<String, Object> options, int seat, int seats, List<List<Integer>> teams,
                       long botSeed, long gameNo) {
}
