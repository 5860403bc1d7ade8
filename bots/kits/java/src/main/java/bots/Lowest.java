package bots;

import java.util.List;

import referee.Action;
import referee.Answer;
import referee.Card;
import referee.Choice;
import referee.Deadline;
import referee.Declared;
import referee.Observation;
import referee.Referee;

/** Plays durak and kazaki with the cheapest cards it can: low ranks first, trumps last; takes or passes last. */
public final class Lowest {
    static Choice act(Observation observation, List<Action> legal, Deadline deadline) {
        String trump = observation.trump();
        Action best = legal.get(0);
        for (Action action : legal) {
            if (cost(action, trump) < cost(best, trump)) { // the first one on ties
                best = action;
            }
        }
        return new Answer(best, "cost " + cost(best, trump));
    }

    static double cost(Action action, String trump) {
        List<Card> mine = action.cards();
        if (action.kind().equals("defend") && !mine.isEmpty()) {
            mine = mine.subList(1, mine.size()); // defend(a,c): c is mine
        }
        if (mine.isEmpty()) {
            return 1000; // take, pass
        }
        double sum = 0;
        for (Card card : mine) {
            sum += card.rank() + (card.suit().equals(trump) ? 100 : 0);
        }
        return sum / mine.size();
    }

    public static void main(String[] args) {
        System.exit(Referee.run("lowest-java", Lowest::act, Declared.games("durak", "kazaki")));
    }
}
