// A DeepSpeed config JSON, read into a scenario and written from one (docs/import.md).
#include "io/framework_config.h"

namespace io {

std::optional<core::InputError> importDeepSpeed(const QByteArray &, const core::Scenario &,
                                                const core::Presets &, const ImportOptions &,
                                                ImportedConfig &)
{
    return core::InputError{{}, "reading a DeepSpeed config is being written"};
}

std::string emitDeepSpeed(const core::Scenario &, const core::ModelSpec &)
{
    return {};
}

} // namespace io
