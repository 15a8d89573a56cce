#pragma once

// What the tests ask of a chart's image, as `parascope export` or the window writes it.
// Needs Qt Gui (QImage).
#include <QImage>
#include <QSet>

// How many colours the image has, sampling every other pixel of every other row: a chart
// drawn with text, axes and series has dozens; a blank or broken one a few.
inline int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); y += 2)
        for (int x = 0; x < rgb.width(); x += 2)
            colours.insert(rgb.pixel(x, y) & 0xFFFFFF);
    return int(colours.size());
}
