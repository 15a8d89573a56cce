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

// The height in pixels of the first line of text from the top in the middle third of the
// image (a chart's title, centred, clear of the axes): the rows from the first with a dark
// pixel to the last of that run, ascenders to descenders.
inline int topTextHeight(const QImage &image)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    const auto dark = [&rgb](int y) {
        for (int x = rgb.width() / 3; x < rgb.width() * 2 / 3; ++x)
            if (qGray(rgb.pixel(x, y)) < 128)
                return true;
        return false;
    };
    int y = 0;
    while (y < rgb.height() && !dark(y))
        ++y;
    const int top = y;
    while (y < rgb.height() && dark(y))
        ++y;
    return y - top;
}
