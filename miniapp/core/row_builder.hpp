#pragma once
// The base of the named-setter builders that the rows of the family table
// (kernels/family_rows.hpp) and of the case-field table (core/case_field_rows.hpp) are written
// with: a row says `.distribution(Distribution::summa)` or `.sweep()` where a positional row said
// the seventh `true`. C++17 has no designated initialisers. A field a row does not set keeps the
// struct's default (zero where the struct gives none).
#include <utility>

namespace miniapp {

template <class Row, class Struct>
class RowBuilder {
public:
  operator Struct() const { return built_; }

protected:
  // Sets one field and returns the row, so that setters chain.
  template <class Field, class Value>
  Row& assign(Field Struct::*field, Value&& value) {
    built_.*field = std::forward<Value>(value);
    return static_cast<Row&>(*this);
  }
  Struct built_{};
};

} // namespace miniapp
