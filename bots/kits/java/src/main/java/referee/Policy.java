package referee;

import java.util.List;

/** A bot as a function: one of {@code legal}, or an {@link Answer} with a note. */
@FunctionalInterface
public interface Policy {
    Choice act(Observation observation, List<Action> legal, Deadline deadline);
}
