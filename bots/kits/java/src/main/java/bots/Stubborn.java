package bots;

import referee.Action;
import referee.Declared;
import referee.Referee;

public final class Stubborn {
    public static void main(String[] args) {
        // observation: the observation of docs/WIRE.md; legal: the legal actions (canonical order)
        System.exit(Referee.run("stubborn", (observation, legal, deadline) -> {
            for (Action action : legal) {
                if (action.kind().equals("take")) {
                    return action;
                }
            }
            return legal.get(0);
        }, Declared.any()));
    }
}
