#pragma once

#include "core/error.h"
#include "core/scenario.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace core {

// Where a scenario key lives in the struct. One table serves the scenario
// file, `--set KEY=VALUE`, and (later) the window's generic "set field" edit.
using FieldMember =
    std::variant<int Scenario::*, double Scenario::*, bool Scenario::*, std::string Scenario::*,
                 std::optional<double> Scenario::*, Precision Scenario::*, Mode Scenario::*,
                 Schedule Scenario::*, Recompute Scenario::*, Attention Scenario::*,
                 Framework Scenario::*, ZeroBuffers Scenario::*, KvPrecision Scenario::*,
                 CpExchange Scenario::*, Fp8Scaling Scenario::*, LossFusion Scenario::*,
                 RankOrder Scenario::*, EpDispatcher Scenario::*, LoraDropoutPosition Scenario::*>;

enum class FieldKind
{
    integer,
    number,
    boolean,
    text
};

struct FieldInfo
{
    std::string_view key;
    FieldMember member;
    std::string_view help; // one sentence, shown as a tooltip and in --help
    // For a key that takes only some of its enumeration's names, those names;
    // empty when it takes them all. `validate` refuses any other.
    std::span<const std::string_view> only = {};
    // For an optional number, the word that means "unset" ("auto"); empty text also does.
    std::string_view unset = {};
};

std::span<const FieldInfo> scenarioFields();
const FieldInfo *findField(std::string_view key);
FieldKind fieldKind(const FieldInfo &field);

// The refusal of a key that is not in the table; an empty key lists the keys.
InputError unknownKey(std::string_view key);

// Parses `text` into the field named `key`. Only the syntax is checked here;
// ranges and combinations are `validate`'s job. Setting `model` or `device`
// to a preset id drops an inline definition.
std::optional<InputError> setField(Scenario &scenario, std::string_view key, std::string_view text);

// The field's value as `setField` accepts it; for an unset optional its `unset` word, or
// empty.
std::string fieldText(const Scenario &scenario, std::string_view key);

// The numeric value of an integer or number field; nullopt for an unset
// optional or a non-numeric field.
std::optional<double> fieldNumber(const Scenario &scenario, std::string_view key);

// "int8, int4 or q4_0"-style list of what a text field accepts; empty if free.
std::string allowedText(const FieldInfo &field);

// Whether the scenario's value of `field` is one its `only` list allows.
bool allowedValue(const Scenario &scenario, const FieldInfo &field);

} // namespace core
