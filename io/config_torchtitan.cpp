// A torchtitan job TOML, read into a scenario and written from one (docs/import.md).
#include "io/framework_config.h"

namespace io {

std::optional<core::InputError> importTorchtitan(const QByteArray &, const core::Scenario &,
                                                 const core::Presets &, const ImportOptions &,
                                                 ImportedConfig &)
{
    return core::InputError{{}, "reading a torchtitan TOML is being written"};
}

std::string emitTorchtitan(const core::Scenario &, const core::ModelSpec &)
{
    return {};
}

} // namespace io
