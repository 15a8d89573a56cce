// Compiled with core's settings by the boundary test: this include must fail,
// because Qt is not on core's include path.
#include <QtCore/QString>

int boundaryProbe()
{
    return QString().size();
}
