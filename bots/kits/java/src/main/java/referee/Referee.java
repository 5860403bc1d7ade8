package referee;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;

/**
 * The Java starter kit for referee bots: write a function, the kit speaks the bot protocol (docs/PROTOCOL.md,
 * version 1) on stdin and stdout with msgpack-java (org.msgpack:msgpack-core).
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     System.exit(Referee.run("first", (observation, legal, deadline) -> legal.get(0), Declared.any()));
 * }
 * }</pre>
 *
 * {@link #run} does the handshake, answers every request with the function's choice, ignores unknown messages and
 * returns on bye or end of input. It mirrors the Python SDK (protocol/sdk.py, docs/SDK.md).
 */
public final class Referee {
    /** The protocol versions this kit speaks (PROTOCOL.md section 11). */
    public static final List<Integer> PROTOCOL_VERSIONS = List.of(1);

    private static final int MAX_INCOMING = 16 * 1024 * 1024; // referee frames are far smaller (PROTOCOL.md 4)
    private static final int MAX_DEPTH = 512; // nesting of a referee frame (version 1 frames nest a few levels)
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private Referee() {
    }

    /**
     * Serves the referee with a bot given as a function until the referee is done, and returns the exit status: 0,
     * 2 when the referee offers no protocol version this kit speaks, 1 when it sends bytes that are not msgpack maps.
     */
    public static int run(String name, Policy policy, Declared declared) {
        return runBot(new Bot() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Choice act(Decision d) {
                return policy.act(d.observation(), d.legal(), d.deadline());
            }
        }, declared);
    }

    /** Serves the referee on stdin and stdout with a bot object; returns the exit status, as {@link #run}. */
    public static int runBot(Bot bot, Declared declared) {
        OutputStream frames = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true)); // stray prints: stderr
        return serve(bot, declared, new FileInputStream(FileDescriptor.in), frames);
    }

    /** Logs a line on stderr (stdout is the protocol's). */
    public static void log(String line) {
        System.err.println(line);
    }

    /** {@link #runBot} on any streams (a test can give it pipes). */
    public static int serve(Bot bot, Declared declared, InputStream in, OutputStream out) {
        MessageUnpacker unpacker = new MessagePack.UnpackerConfig().withStringSizeLimit(MAX_INCOMING)
                .withBufferSize(1 << 16).newUnpacker(in);
        MessagePacker packer = MessagePack.newDefaultPacker(out);
        int seat = 0;
        while (true) {
            Object frame;
            try {
                if (!unpacker.hasNext()) {
                    return 0; // end of input: the referee is gone
                }
                frame = read(unpacker, 0);
            } catch (IOException | RuntimeException e) {
                log("referee bot kit: bad data from the referee: " + e);
                return 1;
            }
            if (!(frame instanceof Map<?, ?>)) {
                log("referee bot kit: expected a msgpack map from the referee, got "
                        + (frame == null ? "nil" : frame.getClass().getSimpleName()));
                return 1;
            }
            Map<String, Object> message = Observation.map(frame);
            Object type = message.get("type");
            try {
                if ("request".equals(type)) {
                    long received = System.nanoTime();
                    List<Action> legal = new ArrayList<>();
                    for (Object text : Observation.list(message.get("legal"))) {
                        legal.add(Action.parse(String.valueOf(text)));
                    }
                    Deadline deadline = null;
                    if (message.get("deadline_ms") instanceof Long ms) {
                        Long bank = message.get("bank_ms") instanceof Long b ? b : null;
                        deadline = new Deadline(ms, bank, received);
                    }
                    Observation observation = new Observation(Observation.map(message.get("observation")));
                    Choice choice = bot.act(new Decision(seat, legal, observation, deadline));
                    String note = choice instanceof Answer answer ? answer.note() : null;
                    boolean withNote = note != null && !note.isEmpty();
                    packer.packMapHeader(withNote ? 4 : 3);
                    packer.packString("type").packString("action");
                    packer.packString("id");
                    pack(packer, message.get("id")); // the request's id, unchanged
                    packer.packString("action").packString(choice.action().text());
                    if (withNote) {
                        packer.packString("debug").packString(note);
                    }
                    packer.flush(); // one flush per answer: an answer in a buffer never arrives
                } else if ("new_game".equals(type)) {
                    seat = Observation.integer(message.get("seat"), 0);
                    List<List<Integer>> teams = null;
                    if (message.get("teams") instanceof List<?> list) {
                        teams = new ArrayList<>();
                        for (Object team : list) {
                            List<Integer> seats = new ArrayList<>();
                            for (Object s : Observation.list(team)) {
                                seats.add(Observation.integer(s, -1));
                            }
                            teams.add(seats);
                        }
                    }
                    Object seed = message.get("bot_seed");
                    long botSeed = seed instanceof Long l ? l : seed instanceof BigInteger b ? b.longValue() : 0;
                    long gameNo = message.get("game_no") instanceof Long n ? n : 0;
                    bot.newGame(new GameInfo(Observation.string(message.get("game")),
                            Observation.map(message.get("options")), seat,
                            Observation.integer(message.get("seats"), 0), teams, botSeed, gameNo));
                } else if ("game_over".equals(type)) {
                    bot.gameOver(Observation.map(message.get("result")));
                } else if ("hello".equals(type)) {
                    int version = -1;
                    for (Object offered : Observation.list(message.get("versions"))) {
                        int v = Observation.integer(offered, -1);
                        if (PROTOCOL_VERSIONS.contains(v) && v > version) {
                            version = v;
                        }
                    }
                    if (version < 0) {
                        String text = "no common protocol version (I speak " + PROTOCOL_VERSIONS + ", offered "
                                + message.get("versions") + ")";
                        log(text);
                        Map<String, Object> error = new LinkedHashMap<>();
                        error.put("type", "error");
                        error.put("message", text);
                        pack(packer, error);
                        packer.flush();
                        return 2;
                    }
                    warmUp();
                    Map<String, Object> hello = new LinkedHashMap<>();
                    hello.put("type", "hello");
                    hello.put("version", (long) version);
                    hello.put("name", bot.name());
                    hello.put("games", declared.games());
                    if (declared.seats() != null) {
                        hello.put("seats", declared.seats());
                    }
                    if (declared.options() != null) {
                        hello.put("options", declared.options());
                    }
                    pack(packer, hello);
                    packer.flush();
                } else if ("bye".equals(type)) {
                    bot.close();
                    return 0;
                }
                // unknown message types are ignored (PROTOCOL.md section 6)
            } catch (IOException e) {
                return 0; // stdout is closed: the referee is done with us
            }
        }
    }

    /**
     * Runs the kit's own code (decoding a request, parsing its actions, encoding an answer) before the first request,
     * inside the handshake's 5 s: the JVM loads and compiles it now, not on the clock of the first request.
     */
    private static void warmUp() {
        try {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            MessagePacker packer = MessagePack.newDefaultPacker(bytes);
            Map<String, Object> observation = new LinkedHashMap<>();
            observation.put("hand", List.of("6C", "10D", "QH", "AS", "7T"));
            observation.put("trump", "H");
            observation.put("events", List.of(Map.of("type", "attack", "seat", 1L, "cards", List.of("7C"))));
            for (int i = 0; i < 200; i++) {
                Map<String, Object> request = new LinkedHashMap<>();
                request.put("type", "request");
                request.put("id", (long) i + (1L << 33));
                request.put("observation", observation);
                request.put("legal", List.of("defend(7C,AC)", "defend(7C,9H)", "attack(JC,JH)", "exchange(2)", "take"));
                request.put("deadline_ms", 1000L);
                pack(packer, request);
            }
            packer.flush();
            MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(bytes.toByteArray());
            MessagePacker sink = MessagePack.newDefaultPacker(OutputStream.nullOutputStream());
            while (unpacker.hasNext()) {
                Map<String, Object> request = Observation.map(read(unpacker, 0));
                Observation seen = new Observation(Observation.map(request.get("observation")));
                seen.hand();
                seen.events();
                for (Object text : Observation.list(request.get("legal"))) {
                    Action action = Action.parse(String.valueOf(text));
                    sink.packMapHeader(3).packString("id");
                    pack(sink, request.get("id"));
                    sink.packString("action").packString(action.text()).packString("cards")
                            .packInt(action.cards().size());
                }
                sink.flush();
            }
        } catch (IOException | RuntimeException e) {
            log("referee bot kit: warm-up failed: " + e); // only slower: the bot still plays
        }
    }

    /**
     * Reads one msgpack value: null, Boolean, Long (BigInteger beyond the long range), Double, String, byte[],
     * List, Map (string keys; others are skipped), or an org.msgpack.value.Value for an extension type.
     */
    private static Object read(MessageUnpacker unpacker, int depth) throws IOException {
        MessageFormat format = unpacker.getNextFormat();
        switch (format.getValueType()) {
            case NIL:
                unpacker.unpackNil();
                return null;
            case BOOLEAN:
                return unpacker.unpackBoolean();
            case INTEGER:
                if (format == MessageFormat.UINT64) {
                    BigInteger n = unpacker.unpackBigInteger();
                    return n.compareTo(LONG_MAX) <= 0 ? (Object) n.longValue() : n;
                }
                return unpacker.unpackLong();
            case FLOAT:
                return unpacker.unpackDouble();
            case STRING:
                return unpacker.unpackString();
            case BINARY:
                return unpacker.readPayload(unpacker.unpackBinaryHeader());
            case ARRAY: {
                if (depth >= MAX_DEPTH) {
                    throw new IOException("arrays and maps nested too deep");
                }
                int n = unpacker.unpackArrayHeader();
                List<Object> list = new ArrayList<>(Math.min(n, 1024));
                for (int i = 0; i < n; i++) {
                    list.add(read(unpacker, depth + 1));
                }
                return list;
            }
            case MAP: {
                if (depth >= MAX_DEPTH) {
                    throw new IOException("arrays and maps nested too deep");
                }
                int n = unpacker.unpackMapHeader();
                Map<String, Object> map = new HashMap<>(Math.min(n, 64) * 2);
                for (int i = 0; i < n; i++) {
                    Object key = read(unpacker, depth + 1);
                    Object value = read(unpacker, depth + 1);
                    if (key instanceof String k) {
                        map.put(k, value);
                    }
                }
                return map;
            }
            default: // EXTENSION (a timestamp, or a type version 1 never sends): kept as msgpack-java's Value
                return unpacker.unpackValue();
        }
    }

    private static void pack(MessagePacker packer, Object value) throws IOException {
        if (value == null) {
            packer.packNil();
        } else if (value instanceof String s) {
            packer.packString(s);
        } else if (value instanceof Boolean b) {
            packer.packBoolean(b);
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short) {
            packer.packLong(((Number) value).longValue());
        } else if (value instanceof BigInteger b) {
            packer.packBigInteger(b);
        } else if (value instanceof Double || value instanceof Float) {
            packer.packDouble(((Number) value).doubleValue());
        } else if (value instanceof List<?> list) {
            packer.packArrayHeader(list.size());
            for (Object item : list) {
                pack(packer, item);
            }
        } else if (value instanceof Map<?, ?> map) {
            packer.packMapHeader(map.size());
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                packer.packString(String.valueOf(entry.getKey()));
                pack(packer, entry.getValue());
            }
        } else {
            packer.packString(String.valueOf(value));
        }
    }
}
