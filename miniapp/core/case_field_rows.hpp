#pragma once
// The rows of the case-field table (case_fields.cpp) name their fields: each setter has the name
// of the field it sets (case_fields.hpp says what the field means), a flag's setter sets it
// (`.sweep()`), and a field a row does not name keeps its default: false, 0 or nullptr
// (core/row_builder.hpp).
#include "core/case_fields.hpp"
#include "core/row_builder.hpp"

#include <cstdint>

namespace miniapp {

class CaseFieldRow : public RowBuilder<CaseFieldRow, CaseField> {
public:
  CaseFieldRow(const char* name, FieldType type) {
    built_.name = name;
    built_.type = type;
  }
  CaseFieldRow& param(Param p) { return assign(&CaseField::param, p); }
  CaseFieldRow& get(decltype(CaseField::get) g) { return assign(&CaseField::get, g); }
  CaseFieldRow& id(decltype(CaseField::id) i) { return assign(&CaseField::id, i); }
  CaseFieldRow& column() { return assign(&CaseField::column, true); }
  CaseFieldRow& sweep() { return assign(&CaseField::sweep, true); }
  CaseFieldRow& min(std::int64_t m) { return assign(&CaseField::min, m); }
  CaseFieldRow& max(std::int64_t m) { return assign(&CaseField::max, m); }
  CaseFieldRow& takes_auto() { return assign(&CaseField::takes_auto, true); }
  CaseFieldRow& set(decltype(CaseField::set) s) { return assign(&CaseField::set, s); }
  CaseFieldRow& hash(decltype(CaseField::hash) h) { return assign(&CaseField::hash, h); }
  CaseFieldRow& default_value(std::int64_t d) { return assign(&CaseField::default_value, d); }
  CaseFieldRow& unset_text(const char* t) { return assign(&CaseField::unset_text, t); }
  CaseFieldRow& id_segment(const char* s) { return assign(&CaseField::id_segment, s); }
  CaseFieldRow& swept_first() { return assign(&CaseField::swept_first, true); }
  CaseFieldRow& words(decltype(CaseField::words) w) { return assign(&CaseField::words, w); }
};

} // namespace miniapp
