// A poem as the verse checker reads it: lines ended by punctuation or a line break, blanks dropped. Shared by
// the checker's rules (VerseRules.cpp), the tables' messages (VerseTables.cpp) and Verse.cpp's verseLines
// and verseSpots, so that all of them count lines and positions alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wb::detail {

// What ends a line; a comma ends a line of verse as much as a full stop does.
bool isLineMark(char32_t c);
// Spaces, tabs, CR and the ideographic space: dropped, never part of a line.
bool isBlank(char32_t c);

struct PoemLine {
    std::u32string chars;
    char32_t mark = 0;  // the punctuation that ended it, 0 for a line break or the end of the text
};

std::vector<PoemLine> splitLines(std::string_view text);

// 'c', as messages name a character.
std::string quoted(char32_t c);

}  // namespace wb::detail
