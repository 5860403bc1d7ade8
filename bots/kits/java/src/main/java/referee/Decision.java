package referee;

import java.util.List;

/**
 * One request: the seat, the legal actions (canonical order, never empty), the observation and the clock
 * ({@code deadline} is null only from a referee that sends no deadline_ms).
 */
public record Decision(int seat, List<Action> legal, Observation observation, Deadline deadline) {
}
