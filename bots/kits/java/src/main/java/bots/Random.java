package bots;

import java.util.SplittableRandom;

import referee.Bot;
import referee.Choice;
import referee.Decision;
import referee.Declared;
import referee.GameInfo;
import referee.Referee;

/**
 * Plays a legal action drawn at random, from a generator seeded with the game's bot_seed: the same game is played
 * the same way every time (referee check, case 8.1). Plays every game.
 */
public final class Random extends Bot {
    private SplittableRandom rng = new SplittableRandom(0);

    @Override
    public String name() {
        return "random-java";
    }

    @Override
    public void newGame(GameInfo info) {
        super.newGame(info);
        rng = new SplittableRandom(info.botSeed());
    }

    @Override
    public Choice act(Decision decision) {
        return decision.legal().get(rng.nextInt(decision.legal().size()));
    }

    public static void main(String[] args) {
        System.exit(Referee.runBot(new Random(), Declared.any()));
    }
}
