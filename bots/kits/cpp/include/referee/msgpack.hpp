// The msgpack-cxx object behind a referee::Value, for what Value does not read (floats, bin, ext types).
#pragma once

#include <msgpack.hpp>

#include "referee/bot.hpp"

namespace referee {

// The value's msgpack::object, or null for an absent value.
inline const msgpack::object* object(Value value) { return static_cast<const msgpack::object*>(value.raw()); }

}  // namespace referee
