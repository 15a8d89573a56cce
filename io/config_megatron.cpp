// A Megatron-LM argument list, read into a scenario and written from one (docs/import.md).
#include "io/framework_config.h"

namespace io {

std::optional<core::InputError> importMegatron(const QByteArray &, const core::Scenario &,
                                               const core::Presets &, const ImportOptions &,
                                               ImportedConfig &)
{
    return core::InputError{{}, "reading Megatron-LM arguments is being written"};
}

std::string emitMegatron(const core::Scenario &, const core::ModelSpec &)
{
    return {};
}

} // namespace io
