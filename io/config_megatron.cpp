// A Megatron-LM argument list, read into a scenario and written from one (docs/import.md).
#include "core/echo.h"
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/framework.h"
#include "core/validate.h"
#include "io/framework_config.h"
#include "io/text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>

namespace io {

namespace megatron_detail {

// ---- Enough of bash for the shape of Megatron-LM's examples/*/train_*.sh ----

struct Token
{
    enum Kind
    {
        word,
        separator, // newline, ;, &, &&, ||, |
        open,
        close
    } kind;
    std::string text;
    int line;
};

struct ShellError
{
    std::string key; // the flag the broken word belongs to, or "line N"
    std::string message;
};

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

class Lexer
{
public:
    explicit Lexer(std::string_view text) : m_text(text) {}

    std::variant<std::vector<Token>, ShellError> run()
    {
        std::vector<Token> out;
        std::string lastFlag; // the last --flag of the current command, for errors
        std::size_t i = 0;
        while (i < m_text.size()) {
            const char c = m_text[i];
            if (isBlank(c)) {
                ++i;
            } else if (c == '\\' && i + 1 < m_text.size() && m_text[i + 1] == '\n') {
                i += 2; // a continuation line
                ++m_line;
            } else if (c == '#') {
                while (i < m_text.size() && m_text[i] != '\n')
                    ++i;
            } else if (c == '\n') {
                out.push_back({Token::separator, "\n", m_line++});
                lastFlag.clear();
                ++i;
            } else if (c == ';' || c == '&' || c == '|') {
                const bool doubled = i + 1 < m_text.size() && m_text[i + 1] == c;
                out.push_back({Token::separator, std::string(doubled ? 2 : 1, c), m_line});
                i += doubled ? 2 : 1;
            } else if (c == '(' || c == ')') {
                out.push_back({c == '(' ? Token::open : Token::close, std::string(1, c), m_line});
                ++i;
            } else {
                const std::size_t start = i;
                const int line = m_line;
                if (!readWord(i))
                    return ShellError{lastFlag.empty() ? "line " + std::to_string(m_errorLine)
                                                       : lastFlag,
                                      m_error + " at line " + std::to_string(m_errorLine)};
                out.push_back({Token::word, std::string(m_text.substr(start, i - start)), line});
                if (out.back().text.starts_with("--"))
                    lastFlag = out.back().text.substr(0, out.back().text.find('='));
            }
        }
        return out;
    }

private:
    bool fail(const char *what, int line)
    {
        m_error = what;
        m_errorLine = line;
        return false;
    }

    // From an opening quote to past its closing one.
    bool skipSingle(std::size_t &i)
    {
        const int line = m_line;
        const std::size_t end = m_text.find('\'', i + 1);
        if (end == std::string_view::npos)
            return fail("unbalanced quote (')", line);
        m_line += int(std::count(m_text.begin() + i, m_text.begin() + end, '\n'));
        i = end + 1;
        return true;
    }

    bool skipDouble(std::size_t &i)
    {
        const int line = m_line;
        for (++i; i < m_text.size(); ++i) {
            const char c = m_text[i];
            if (c == '\\') {
                if (i + 1 < m_text.size() && m_text[i + 1] == '\n')
                    ++m_line;
                ++i;
            } else if (c == '\n') {
                ++m_line;
            } else if (c == '"') {
                ++i;
                return true;
            } else if (c == '$' && i + 1 < m_text.size() &&
                       (m_text[i + 1] == '(' || m_text[i + 1] == '{')) {
                ++i;
                if (!skipBalanced(i))
                    return false;
                --i;
            }
        }
        return fail("unbalanced quote (\")", line);
    }

    // From an opening ( or { to past its match, through quotes.
    bool skipBalanced(std::size_t &i)
    {
        const int line = m_line;
        const char open = m_text[i];
        const char close = open == '(' ? ')' : '}';
        int depth = 0;
        while (i < m_text.size()) {
            const char c = m_text[i];
            if (c == '\'') {
                if (!skipSingle(i))
                    return false;
                continue;
            }
            if (c == '"') {
                if (!skipDouble(i))
                    return false;
                continue;
            }
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == '\n')
                ++m_line;
            if (c == open)
                ++depth;
            else if (c == close && --depth == 0) {
                ++i;
                return true;
            }
            ++i;
        }
        return fail(open == '(' ? "unclosed $(" : "unclosed ${", line);
    }

    bool readWord(std::size_t &i)
    {
        while (i < m_text.size()) {
            const char c = m_text[i];
            if (isBlank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')')
                return true;
            if (c == '\'') {
                if (!skipSingle(i))
                    return false;
            } else if (c == '"') {
                if (!skipDouble(i))
                    return false;
            } else if (c == '`') {
                const std::size_t end = m_text.find('`', i + 1);
                if (end == std::string_view::npos)
                    return fail("unbalanced quote (`)", m_line);
                i = end + 1;
            } else if (c == '\\') {
                if (i + 1 < m_text.size() && m_text[i + 1] == '\n')
                    ++m_line;
                i += 2;
            } else if (c == '$' && i + 1 < m_text.size() &&
                       (m_text[i + 1] == '(' || m_text[i + 1] == '{')) {
                ++i;
                if (!skipBalanced(i))
                    return false;
            } else {
                ++i;
            }
        }
        return true;
    }

    std::string_view m_text;
    int m_line = 1;
    std::string m_error;
    int m_errorLine = 0;
};

bool isName(std::string_view s)
{
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// "NAME=", "NAME+=": the name and whether it appends; nullopt for any other word.
std::optional<std::pair<std::string, bool>> assignmentName(std::string_view word)
{
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0)
        return std::nullopt;
    const bool append = word[eq - 1] == '+';
    const std::string_view name = word.substr(0, append ? eq - 1 : eq);
    if (!isName(name))
        return std::nullopt;
    return std::pair{std::string(name), append};
}

std::optional<long long> parseInteger(std::string_view text)
{
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return value;
}

struct Item
{
    std::string raw;
    int line;
    std::optional<std::vector<std::string>> array; // NAME=( ... )
};
using Command = std::vector<Item>;

// Commands joined by && and || (and |), run in order.
struct AndOr
{
    std::vector<Command> commands;
    std::vector<std::string> ops;
};

struct Expanded
{
    std::vector<std::string> fields;
    bool unresolved = false; // a command substitution or an expansion Parascope cannot do
};

// The longest variable value kept; no launch script comes near it.
constexpr std::size_t kMaxValue = 1 << 20;

class Shell
{
public:
    std::vector<std::string> megatronArgs;
    std::vector<std::string> assumptions;
    std::vector<IgnoredField> ignored;

    void run(const std::vector<Token> &tokens)
    {
        for (const AndOr &list : parse(tokens))
            execute(list);
    }

private:
    struct Frame
    {
        bool parentActive;
        bool active;
        bool taken;
    };

    static std::vector<AndOr> parse(const std::vector<Token> &tokens)
    {
        std::vector<AndOr> out;
        AndOr list;
        Command command;
        const auto endCommand = [&] {
            if (!command.empty())
                list.commands.push_back(std::move(command));
            command.clear();
        };
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const Token &t = tokens[i];
            if (t.kind == Token::word) {
                const bool arrayNext = i + 1 < tokens.size() && tokens[i + 1].kind == Token::open &&
                                       t.text.ends_with('=') && assignmentName(t.text);
                Item item{t.text, t.line, std::nullopt};
                if (arrayNext) {
                    item.array.emplace();
                    for (i += 2; i < tokens.size() && tokens[i].kind != Token::close; ++i)
                        if (tokens[i].kind == Token::word)
                            item.array->push_back(tokens[i].text);
                }
                command.push_back(std::move(item));
            } else if (t.kind == Token::separator &&
                       (t.text == "&&" || t.text == "||" || t.text == "|")) {
                if (!command.empty()) {
                    endCommand();
                    list.ops.push_back(t.text);
                }
            } else if (t.kind == Token::separator) {
                endCommand();
                if (!list.commands.empty())
                    out.push_back(std::move(list));
                list = {};
            }
            // A subshell's or a function's parentheses: their words read as one command.
        }
        endCommand();
        if (!list.commands.empty())
            out.push_back(std::move(list));
        return out;
    }

    bool active() const { return m_frames.empty() || m_frames.back().active; }

    void execute(AndOr list)
    {
        Command &first = list.commands.front();
        const std::string keyword = first.front().raw;
        const int line = first.front().line;
        if (keyword == "then" || keyword == "do" || keyword == "else" || keyword == "{" ||
            keyword == "}") {
            if (keyword == "else" && !m_frames.empty()) {
                Frame &f = m_frames.back();
                f.active = f.parentActive && !f.taken;
                f.taken = true;
            }
            first.erase(first.begin());
            if (first.empty()) {
                list.commands.erase(list.commands.begin());
                if (!list.ops.empty())
                    list.ops.erase(list.ops.begin());
            }
            if (!list.commands.empty())
                execute(std::move(list));
            return;
        }
        if (keyword == "fi" || keyword == "done" || keyword == "esac") {
            if (!m_frames.empty())
                m_frames.pop_back();
            return;
        }
        if (keyword == "if" || keyword == "elif") {
            first.erase(first.begin());
            const bool parent = keyword == "if" ? active() : m_frames.back().parentActive;
            if (keyword == "elif" && m_frames.empty())
                return;
            bool value = false;
            const bool decide = keyword == "if" || !m_frames.back().taken;
            if (parent && decide) {
                const std::optional<bool> test = condition(list);
                if (!test)
                    assumptions.push_back("line " + std::to_string(line) +
                                          ": a condition the file alone does not decide; read "
                                          "its branch as taken");
                value = test.value_or(true);
            }
            if (keyword == "if") {
                m_frames.push_back({parent, parent && value, value});
            } else {
                Frame &f = m_frames.back();
                f.active = parent && decide && value;
                f.taken = f.taken || value;
            }
            return;
        }
        if (keyword == "for" || keyword == "while" || keyword == "until" || keyword == "case") {
            if (active())
                assumptions.push_back("line " + std::to_string(line) + ": a " + keyword +
                                      " block, not followed");
            m_frames.push_back({active(), false, true});
            return;
        }
        if (!active())
            return;
        for (const Command &command : list.commands)
            run(command);
    }

    // [[ a == b ]], [ -z a ], ... joined by && and ||; nullopt when the file alone does not
    // decide it.
    std::optional<bool> condition(const AndOr &list)
    {
        std::optional<bool> result;
        for (std::size_t i = 0; i < list.commands.size(); ++i) {
            const std::optional<bool> one = test(list.commands[i]);
            if (i == 0)
                result = one;
            else if (list.ops[i - 1] == "&&")
                result = (result == false || one == false) ? std::optional(false)
                         : (result && one)                 ? std::optional(true)
                                                           : std::nullopt;
            else
                result = (result == true || one == true) ? std::optional(true)
                         : (result && one)               ? std::optional(false)
                                                         : std::nullopt;
        }
        return result;
    }

    std::optional<bool> test(const Command &command)
    {
        std::vector<std::string> args;
        for (const Item &item : command) {
            const Expanded e = expand(item.raw, false);
            if (e.unresolved)
                return std::nullopt;
            args.push_back(e.fields.empty() ? std::string() : e.fields.front());
        }
        bool negate = false;
        if (!args.empty() && args.front() == "!") {
            negate = true;
            args.erase(args.begin());
        }
        if (!args.empty() &&
            (args.front() == "[[" || args.front() == "[" || args.front() == "test"))
            args.erase(args.begin());
        else if (!args.empty() && args.front() != "]]" && args.front() != "]" &&
                 args.back() != "]]" && args.back() != "]")
            return std::nullopt; // a command, not a test
        if (!args.empty() && (args.back() == "]]" || args.back() == "]"))
            args.pop_back();
        if (!args.empty() && args.front() == "!") {
            negate = !negate;
            args.erase(args.begin());
        }
        std::optional<bool> value;
        if (args.size() == 1)
            value = !args[0].empty();
        else if (args.size() == 2 && args[0] == "-z")
            value = args[1].empty();
        else if (args.size() == 2 && args[0] == "-n")
            value = !args[1].empty();
        else if (args.size() == 3 && (args[1] == "==" || args[1] == "="))
            value = args[0] == args[2];
        else if (args.size() == 3 && args[1] == "!=")
            value = args[0] != args[2];
        else if (args.size() == 3 && args[1].size() == 3 && args[1][0] == '-') {
            const auto a = parseInteger(args[0]), b = parseInteger(args[2]);
            if (!a || !b)
                return std::nullopt;
            const std::string &op = args[1];
            value = op == "-eq"   ? *a == *b
                    : op == "-ne" ? *a != *b
                    : op == "-lt" ? *a < *b
                    : op == "-le" ? *a <= *b
                    : op == "-gt" ? *a > *b
                    : op == "-ge" ? std::optional(*a >= *b)
                                  : std::nullopt;
        }
        if (!value)
            return std::nullopt;
        return negate ? !*value : *value;
    }

    void run(const Command &command)
    {
        std::size_t i = 0;
        const bool declaration =
            command.front().raw == "export" || command.front().raw == "declare" ||
            command.front().raw == "local" || command.front().raw == "readonly";
        if (declaration) {
            for (i = 1; i < command.size(); ++i)
                if (assignmentName(command[i].raw))
                    assign(command[i]);
            return;
        }
        for (; i < command.size() && assignmentName(command[i].raw); ++i)
            assign(command[i]);
        std::vector<std::string> fields;
        for (; i < command.size(); ++i)
            for (std::string &f : expand(command[i].raw, true).fields)
                fields.push_back(std::move(f));
        if (!fields.empty())
            launch(fields);
    }

    void assign(const Item &item)
    {
        const auto [name, append] = *assignmentName(item.raw);
        std::vector<std::string> &value = m_vars[name];
        if (item.array) {
            if (!append)
                value.clear();
            for (const std::string &raw : *item.array)
                for (std::string &f : expand(raw, true).fields)
                    if (value.size() < kMaxValue / 64)
                        value.push_back(std::move(f));
            return;
        }
        const Expanded e = expand(std::string_view(item.raw).substr(item.raw.find('=') + 1), false);
        std::string text = e.fields.empty() ? std::string() : e.fields.front();
        if (text.size() > kMaxValue)
            text.resize(kMaxValue); // a value doubling itself: bash would run out of memory
        if (append && !value.empty())
            value.front() += text;
        else
            value = {text};
    }

    // torchrun ... pretrain_gpt.py ARGS, python pretrain_gpt.py ARGS, or a bare --flag list.
    void launch(const std::vector<std::string> &fields)
    {
        const std::string &head = fields.front();
        if (head.starts_with("--")) {
            megatronArgs.insert(megatronArgs.end(), fields.begin(), fields.end());
            return;
        }
        const bool python = head.starts_with("python");
        const bool launcher =
            head == "torchrun" ||
            (python && fields.size() > 2 && fields[1] == "-m" &&
             (fields[2] == "torch.distributed.run" || fields[2] == "torch.distributed.launch"));
        if (!launcher && !python && !head.ends_with(".py"))
            return;
        std::size_t script = 0;
        while (script < fields.size() && !fields[script].ends_with(".py"))
            ++script;
        if (script == fields.size())
            return;
        if (launcher) {
            // The launcher's own flags sit before the script; the world size is read from
            // them like any flag.
            std::size_t first = head == "torchrun" ? 1 : 3;
            megatronArgs.insert(megatronArgs.end(), fields.begin() + first,
                                fields.begin() + script);
        }
        megatronArgs.insert(megatronArgs.end(), fields.begin() + script + 1, fields.end());
    }

    std::optional<std::vector<std::string>> lookup(const std::string &name) const
    {
        const auto it = m_vars.find(name);
        if (it == m_vars.end())
            return std::nullopt;
        return it->second;
    }

    // Builds the fields of one word: quoted text stays whole, unquoted expansions split on
    // blanks (`split`), "${A[@]}" gives one field per element.
    class Builder
    {
    public:
        explicit Builder(bool split) : m_split(split) {}
        void literal(std::string_view s)
        {
            m_current += s;
            m_has = true;
        }
        void quotedFields(const std::vector<std::string> &values)
        {
            for (std::size_t k = 0; k < values.size(); ++k) {
                if (k > 0)
                    flush();
                literal(values[k]);
            }
        }
        void unquoted(const std::string &s)
        {
            if (!m_split) {
                literal(s);
                return;
            }
            std::size_t i = 0;
            while (i < s.size()) {
                if (std::isspace(static_cast<unsigned char>(s[i]))) {
                    flush();
                    ++i;
                    continue;
                }
                const std::size_t start = i;
                while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])))
                    ++i;
                literal(s.substr(start, i - start));
            }
        }
        void flush()
        {
            if (m_has)
                fields.push_back(m_current);
            m_current.clear();
            m_has = false;
        }
        std::vector<std::string> fields;

    private:
        bool m_split;
        std::string m_current;
        bool m_has = false;
    };

    Expanded expand(std::string_view raw, bool split)
    {
        Expanded out;
        Builder b(split);
        for (std::size_t i = 0; i < raw.size();) {
            const char c = raw[i];
            if (c == '\'') {
                const std::size_t end = std::min(raw.find('\'', i + 1), raw.size());
                b.literal(raw.substr(i + 1, end - i - 1));
                i = end + 1;
            } else if (c == '"') {
                b.literal("");
                for (++i; i < raw.size() && raw[i] != '"';) {
                    if (raw[i] == '\\' && i + 1 < raw.size()) {
                        const char next = raw[i + 1];
                        if (next != '\n')
                            b.literal(std::string_view(raw).substr(
                                std::string_view("$`\"\\").find(next) == std::string_view::npos
                                    ? i
                                    : i + 1,
                                std::string_view("$`\"\\").find(next) == std::string_view::npos
                                    ? 2
                                    : 1));
                        i += 2;
                    } else if (raw[i] == '$') {
                        dollar(raw, i, b, true, out.unresolved);
                    } else {
                        b.literal(raw.substr(i, 1));
                        ++i;
                    }
                }
                ++i;
            } else if (c == '\\') {
                if (i + 1 < raw.size() && raw[i + 1] != '\n')
                    b.literal(raw.substr(i + 1, 1));
                i += 2;
            } else if (c == '$') {
                dollar(raw, i, b, false, out.unresolved);
            } else if (c == '`') {
                const std::size_t end = std::min(raw.find('`', i + 1), raw.size());
                b.literal(raw.substr(i, end + 1 - i));
                out.unresolved = true;
                i = end + 1;
            } else {
                b.literal(raw.substr(i, 1));
                ++i;
            }
        }
        b.flush();
        out.fields = std::move(b.fields);
        return out;
    }

    // The end of a balanced ( or { construct from `i` at its opener.
    static std::size_t matching(std::string_view raw, std::size_t i)
    {
        const char open = raw[i], close = open == '(' ? ')' : '}';
        int depth = 0;
        char quote = 0;
        for (; i < raw.size(); ++i) {
            const char c = raw[i];
            if (quote) {
                if (c == quote)
                    quote = 0;
                else if (c == '\\' && quote == '"')
                    ++i;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '\\') {
                ++i;
            } else if (c == open) {
                ++depth;
            } else if (c == close && --depth == 0) {
                return i;
            }
        }
        return raw.size() - 1;
    }

    void dollar(std::string_view raw, std::size_t &i, Builder &b, bool quoted, bool &unresolved)
    {
        const auto put = [&](const std::vector<std::string> &values, bool all) {
            if (quoted && all) {
                b.quotedFields(values);
                return;
            }
            std::string joined;
            for (std::size_t k = 0; k < values.size(); ++k)
                joined += (k > 0 ? " " : "") + values[k];
            if (quoted)
                b.literal(joined);
            else
                b.unquoted(joined);
        };
        if (i + 1 >= raw.size()) {
            b.literal("$");
            ++i;
            return;
        }
        const char next = raw[i + 1];
        if (next == '(' && i + 2 < raw.size() && raw[i + 2] == '(') {
            const std::size_t end = matching(raw, i + 1);
            const std::string_view expr = raw.substr(i + 3, end - i - 4);
            const std::optional<long long> value = arithmetic(expr);
            if (value)
                put({std::to_string(*value)}, false);
            else {
                b.literal(raw.substr(i, end + 1 - i));
                unresolved = true;
            }
            i = end + 1;
        } else if (next == '(') {
            const std::size_t end = matching(raw, i + 1);
            b.literal(raw.substr(i, end + 1 - i)); // a command's output: not in the file
            unresolved = true;
            i = end + 1;
        } else if (next == '{') {
            const std::size_t end = matching(raw, i + 1);
            parameter(raw.substr(i + 2, end - i - 2), put, unresolved);
            i = end + 1;
        } else {
            std::size_t end = i + 1;
            if (std::isdigit(static_cast<unsigned char>(next)) || next == '@' || next == '*' ||
                next == '#' || next == '?')
                ++end;
            else
                while (end < raw.size() &&
                       (std::isalnum(static_cast<unsigned char>(raw[end])) || raw[end] == '_'))
                    ++end;
            if (end == i + 1) {
                b.literal("$");
                ++i;
                return;
            }
            const auto value = lookup(std::string(raw.substr(i + 1, end - i - 1)));
            if (value && !value->empty())
                put({value->front()}, false);
            i = end;
        }
    }

    template <typename Put> void parameter(std::string_view inner, const Put &put, bool &unresolved)
    {
        std::size_t n = 0;
        while (n < inner.size() &&
               (std::isalnum(static_cast<unsigned char>(inner[n])) || inner[n] == '_'))
            ++n;
        const std::string name(inner.substr(0, n));
        std::string_view rest = inner.substr(n);
        std::optional<std::vector<std::string>> value = lookup(name);
        bool all = false;
        if (rest.starts_with('[')) {
            const std::size_t close = rest.find(']');
            const std::string_view index = rest.substr(1, close - 1);
            rest = rest.substr(close + 1);
            if (index == "@" || index == "*")
                all = true;
            else if (value) {
                const auto k = parseInteger(index);
                if (k && *k >= 0 && std::size_t(*k) < value->size())
                    value = std::vector{(*value)[std::size_t(*k)]};
                else
                    value = std::nullopt;
            }
        } else if (value && !value->empty()) {
            value = std::vector{value->front()};
        }
        const bool empty =
            !value || value->empty() || (value->size() == 1 && value->front().empty());
        const auto word = [&](std::string_view text) {
            const Expanded e = expand(text, false);
            unresolved = unresolved || e.unresolved;
            return std::vector{e.fields.empty() ? std::string() : e.fields.front()};
        };
        if (rest.starts_with(":-") || rest.starts_with(":=")) {
            if (empty) {
                value = word(rest.substr(2));
                if (rest[1] == '=')
                    m_vars[name] = *value;
            }
        } else if (rest.starts_with('-') || rest.starts_with('=')) {
            if (!value) {
                value = word(rest.substr(1));
                if (rest[0] == '=')
                    m_vars[name] = *value;
            }
        } else if (rest.starts_with(":+")) {
            value = empty ? std::vector<std::string>{} : word(rest.substr(2));
        } else if (!rest.empty()) {
            unresolved = true; // ${A%suffix}, ${A/x/y}, ...
        }
        if (value && !value->empty())
            put(*value, all);
    }

    // $(( ... )) over integers and the file's variables.
    std::optional<long long> arithmetic(std::string_view text)
    {
        const Expanded e = expand(text, false);
        if (e.unresolved)
            return std::nullopt;
        const std::string expr = e.fields.empty() ? std::string() : e.fields.front();
        std::size_t i = 0;
        bool ok = true;
        const auto skip = [&] {
            while (i < expr.size() && std::isspace(static_cast<unsigned char>(expr[i])))
                ++i;
        };
        std::function<long long()> sum;
        const auto atom = [&]() -> long long {
            skip();
            if (i < expr.size() && expr[i] == '(') {
                ++i;
                const long long v = sum();
                skip();
                if (i < expr.size() && expr[i] == ')')
                    ++i;
                else
                    ok = false;
                return v;
            }
            if (i < expr.size() && expr[i] == '-') {
                ++i;
                return -sum();
            }
            const std::size_t start = i;
            while (i < expr.size() &&
                   (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '_'))
                ++i;
            const std::string token = expr.substr(start, i - start);
            if (token.empty()) {
                ok = false;
                return 0;
            }
            if (const auto v = parseInteger(token))
                return *v;
            const auto value = lookup(token);
            if (!value || value->empty())
                return 0; // bash: an unset name is 0
            const auto v = parseInteger(value->front());
            if (!v)
                ok = false;
            return v.value_or(0);
        };
        const auto product = [&]() -> long long {
            long long v = atom();
            for (skip(); ok && i < expr.size() && std::strchr("*/%", expr[i]); skip()) {
                const char op = expr[i++];
                const long long r = atom();
                if (op != '*' && r == 0) {
                    ok = false;
                    return 0;
                }
                v = op == '*' ? v * r : op == '/' ? v / r : v % r;
            }
            return v;
        };
        sum = [&]() -> long long {
            long long v = product();
            for (skip(); ok && i < expr.size() && (expr[i] == '+' || expr[i] == '-'); skip()) {
                const char op = expr[i++];
                const long long r = product();
                v = op == '+' ? v + r : v - r;
            }
            return v;
        };
        const long long value = sum();
        skip();
        if (!ok || i != expr.size())
            return std::nullopt;
        return value;
    }

    std::map<std::string, std::vector<std::string>> m_vars;
    std::vector<Frame> m_frames;
};

// ---- Megatron-LM's arguments (megatron/training/arguments.py) ----

enum class Flag
{
    mtpLayers,
    tp,
    pp,
    cp,
    cpCommType,
    ep,
    expertTp,
    vppLayers,
    vppRank,
    vppSize,
    ppLayout,
    firstStageLayers,
    lastStageLayers,
    microBatch,
    globalBatch,
    seqLength,
    recomputeGranularity,
    recomputeActivations,
    recomputeMethod,
    recomputeNumLayers,
    cpuOffloadingNumLayers,
    recomputeModules,
    sequenceParallel,
    distributedOptimizer,
    megatronFsdp,
    embeddingInSplit,
    lossInSplit,
    tpPpDpMapping,
    shardingStrategy,
    optimizerInstances,
    outerShardingStrategy,
    bf16,
    fp16,
    fp8Format,
    fp8ParamGather,
    fp8Dpa,
    fp8Mha,
    fp8OutputProj,
    fp4Format,
    fp4ParamGather,
    ddpBucketSize,
    fp8Recipe,
    tpCommOverlap,
    overlapMoeComm,
    delayWgrad,
    overlapGradReduce,
    overlapParamGather,
    gradReduceBf16,
    gradFp32,
    precisionAwareOptimizer,
    expAvgDtype,
    expAvgSqDtype,
    noGradAccFusion,
    lossFusion,
    lossFusionImpl,
    noSwigluFusion,
    activationFp8Input,
    attentionBackend,
    numLayers,
    hiddenSize,
    ffnHiddenSize,
    numHeads,
    gqa,
    queryGroups,
    kvChannels,
    swiglu,
    untie,
    disableBiasLinear,
    positionEmbedding,
    maxPositions,
    normalization,
    vocabSize,
    vocabDivisible,
    qkLayernorm,
    addQkvBias,
    attentionDropout,
    hiddenDropout,
    numExperts,
    moeTopk,
    moeFfn,
    moeShared,
    moeLayerFreq,
    moeExpertBias,
    moeNumGroups,
    moeGroupTopk,
    moeDispatcher,
    moeEnableDeepep,
    moeFlexBackend,
    moeCapacity,
    moePadToCapacity,
    moeForceBalance,
    cudaGraphImpl,
    cudaGraphScope,
    windowSize,
    windowSkipFreq,
    mla,
    kvLoraRank,
    qLoraRank,
    qkHeadDim,
    qkPosDim,
    vHeadDim,
    nprocPerNode,
    nnodes
};

enum class Takes
{
    nothing,
    value,
    values // nargs='+'
};

struct FlagInfo
{
    std::string_view name;
    Flag flag;
    Takes takes;
    std::string_view key; // what it sets, for `read`
};

// megatron/training/arguments.py and megatron/core/transformer/transformer_config.py; torchrun's
// own flags for the world size.
constexpr std::array kFlags{
    FlagInfo{"--tensor-model-parallel-size", Flag::tp, Takes::value, "tp"},
    FlagInfo{"--pipeline-model-parallel-size", Flag::pp, Takes::value, "pp"},
    FlagInfo{"--context-parallel-size", Flag::cp, Takes::value, "cp"},
    FlagInfo{"--cp-comm-type", Flag::cpCommType, Takes::values, "cp_exchange"},
    FlagInfo{"--expert-model-parallel-size", Flag::ep, Takes::value, "ep"},
    FlagInfo{"--expert-tensor-parallel-size", Flag::expertTp, Takes::value, "expert_tp"},
    FlagInfo{"--num-layers-per-virtual-pipeline-stage", Flag::vppLayers, Takes::value,
             "virtual_stages"},
    FlagInfo{"--num-virtual-stages-per-pipeline-rank", Flag::vppRank, Takes::value,
             "virtual_stages"},
    FlagInfo{"--virtual-pipeline-model-parallel-size", Flag::vppSize, Takes::value,
             "virtual_stages"},
    FlagInfo{"--pipeline-model-parallel-layout", Flag::ppLayout, Takes::value, "pipeline_layout"},
    FlagInfo{"--mtp-num-layers", Flag::mtpLayers, Takes::value, "mtp_layers"},
    FlagInfo{"--decoder-first-pipeline-num-layers", Flag::firstStageLayers, Takes::value,
             "pipeline_layout"},
    FlagInfo{"--decoder-last-pipeline-num-layers", Flag::lastStageLayers, Takes::value,
             "pipeline_layout"},
    FlagInfo{"--micro-batch-size", Flag::microBatch, Takes::value, "microbatch_size"},
    FlagInfo{"--global-batch-size", Flag::globalBatch, Takes::value, "microbatches"},
    FlagInfo{"--seq-length", Flag::seqLength, Takes::value, "seq_len"},
    FlagInfo{"--recompute-granularity", Flag::recomputeGranularity, Takes::value, "recompute"},
    FlagInfo{"--recompute-activations", Flag::recomputeActivations, Takes::nothing, "recompute"},
    FlagInfo{"--recompute-method", Flag::recomputeMethod, Takes::value, "recompute"},
    FlagInfo{"--recompute-num-layers", Flag::recomputeNumLayers, Takes::value, "recompute"},
    FlagInfo{"--recompute-modules", Flag::recomputeModules, Takes::values, "recompute"},
    FlagInfo{"--cpu-offloading-num-layers", Flag::cpuOffloadingNumLayers, Takes::value,
             "offload_layers"},
    FlagInfo{"--sequence-parallel", Flag::sequenceParallel, Takes::nothing, "sequence_parallel"},
    FlagInfo{"--use-distributed-optimizer", Flag::distributedOptimizer, Takes::nothing, "zero"},
    FlagInfo{"--use-megatron-fsdp", Flag::megatronFsdp, Takes::nothing, "zero"},
    FlagInfo{"--use-tp-pp-dp-mapping", Flag::tpPpDpMapping, Takes::nothing, "rank_order"},
    FlagInfo{"--account-for-embedding-in-pipeline-split", Flag::embeddingInSplit, Takes::nothing,
             "ends_in_pipeline_split"},
    FlagInfo{"--account-for-loss-in-pipeline-split", Flag::lossInSplit, Takes::nothing,
             "ends_in_pipeline_split"},
    FlagInfo{"--data-parallel-sharding-strategy", Flag::shardingStrategy, Takes::value, "zero"},
    FlagInfo{"--num-distributed-optimizer-instances", Flag::optimizerInstances, Takes::value,
             "zero_replicas"},
    FlagInfo{"--outer-dp-sharding-strategy", Flag::outerShardingStrategy, Takes::value,
             "zero_replicas"},
    FlagInfo{"--bf16", Flag::bf16, Takes::nothing, "precision"},
    FlagInfo{"--fp16", Flag::fp16, Takes::nothing, "precision"},
    FlagInfo{"--fp8-format", Flag::fp8Format, Takes::value, "precision"},
    FlagInfo{"--fp8-param-gather", Flag::fp8ParamGather, Takes::nothing, "fp8_params"},
    FlagInfo{"--fp8-dot-product-attention", Flag::fp8Dpa, Takes::nothing, "fp8_attention"},
    FlagInfo{"--fp8-multi-head-attention", Flag::fp8Mha, Takes::nothing, "fp8_attention"},
    FlagInfo{"--fp8-output-proj", Flag::fp8OutputProj, Takes::nothing, "fp8_lm_head"},
    FlagInfo{"--fp4-format", Flag::fp4Format, Takes::value, "precision"},
    FlagInfo{"--fp4-param-gather", Flag::fp4ParamGather, Takes::nothing, "precision"},
    FlagInfo{"--fp8-recipe", Flag::fp8Recipe, Takes::value, "fp8_scaling"},
    FlagInfo{"--tp-comm-overlap", Flag::tpCommOverlap, Takes::nothing, "tp_overlap"},
    FlagInfo{"--overlap-moe-expert-parallel-comm", Flag::overlapMoeComm, Takes::nothing,
             "ep_overlap"},
    FlagInfo{"--delay-wgrad-compute", Flag::delayWgrad, Takes::nothing, "ep_overlap"},
    FlagInfo{"--overlap-grad-reduce", Flag::overlapGradReduce, Takes::nothing, "dp_overlap"},
    FlagInfo{"--overlap-param-gather", Flag::overlapParamGather, Takes::nothing,
             "overlap_param_gather"},
    FlagInfo{"--ddp-bucket-size", Flag::ddpBucketSize, Takes::value, "dp_bucket_params"},
    FlagInfo{"--grad-reduce-in-bf16", Flag::gradReduceBf16, Takes::nothing, "grad_precision"},
    FlagInfo{"--accumulate-allreduce-grads-in-fp32", Flag::gradFp32, Takes::nothing,
             "grad_precision"},
    FlagInfo{"--use-precision-aware-optimizer", Flag::precisionAwareOptimizer, Takes::nothing,
             "optimizer_moments"},
    FlagInfo{"--exp-avg-dtype", Flag::expAvgDtype, Takes::value, "optimizer_moments"},
    FlagInfo{"--exp-avg-sq-dtype", Flag::expAvgSqDtype, Takes::value, "optimizer_moments"},
    FlagInfo{"--no-gradient-accumulation-fusion", Flag::noGradAccFusion, Takes::nothing,
             "fused_grad_accumulation"},
    FlagInfo{"--no-bias-swiglu-fusion", Flag::noSwigluFusion, Takes::nothing, "fused_swiglu"},
    FlagInfo{"--activation-func-fp8-input-store", Flag::activationFp8Input, Takes::nothing,
             "fp8_activation_input"},
    FlagInfo{"--cross-entropy-loss-fusion", Flag::lossFusion, Takes::nothing, "loss_fusion"},
    FlagInfo{"--cross-entropy-fusion-impl", Flag::lossFusionImpl, Takes::value, "loss_fusion"},
    FlagInfo{"--attention-backend", Flag::attentionBackend, Takes::value, "attention"},
    FlagInfo{"--num-layers", Flag::numLayers, Takes::value, "model.layers"},
    FlagInfo{"--hidden-size", Flag::hiddenSize, Takes::value, "model.hidden"},
    FlagInfo{"--ffn-hidden-size", Flag::ffnHiddenSize, Takes::value, "model.ffn_hidden"},
    FlagInfo{"--num-attention-heads", Flag::numHeads, Takes::value, "model.heads"},
    FlagInfo{"--group-query-attention", Flag::gqa, Takes::nothing, "model.kv_heads"},
    FlagInfo{"--num-query-groups", Flag::queryGroups, Takes::value, "model.kv_heads"},
    FlagInfo{"--kv-channels", Flag::kvChannels, Takes::value, "model.head_dim"},
    FlagInfo{"--swiglu", Flag::swiglu, Takes::nothing, "model.gated_mlp"},
    FlagInfo{"--untie-embeddings-and-output-weights", Flag::untie, Takes::nothing,
             "model.tied_embeddings"},
    FlagInfo{"--disable-bias-linear", Flag::disableBiasLinear, Takes::nothing, "model.bias"},
    FlagInfo{"--position-embedding-type", Flag::positionEmbedding, Takes::value,
             "model.learned_positions"},
    FlagInfo{"--max-position-embeddings", Flag::maxPositions, Takes::value, "model.context_window"},
    FlagInfo{"--normalization", Flag::normalization, Takes::value, "model.bias"},
    FlagInfo{"--vocab-size", Flag::vocabSize, Takes::value, "model.vocab"},
    FlagInfo{"--make-vocab-size-divisible-by", Flag::vocabDivisible, Takes::value, "model.vocab"},
    FlagInfo{"--qk-layernorm", Flag::qkLayernorm, Takes::nothing, "model.qk_norm"},
    FlagInfo{"--add-qkv-bias", Flag::addQkvBias, Takes::nothing, "model.qkv_bias"},
    FlagInfo{"--attention-dropout", Flag::attentionDropout, Takes::value, "model.dropout"},
    FlagInfo{"--hidden-dropout", Flag::hiddenDropout, Takes::value, "model.dropout"},
    FlagInfo{"--num-experts", Flag::numExperts, Takes::value, "model.experts"},
    FlagInfo{"--moe-router-topk", Flag::moeTopk, Takes::value, "model.experts_per_token"},
    FlagInfo{"--moe-ffn-hidden-size", Flag::moeFfn, Takes::value, "model.expert_ffn_hidden"},
    FlagInfo{"--moe-shared-expert-intermediate-size", Flag::moeShared, Takes::value,
             "model.shared_experts"},
    FlagInfo{"--moe-layer-freq", Flag::moeLayerFreq, Takes::value, "model.moe_layer_period"},
    FlagInfo{"--moe-router-enable-expert-bias", Flag::moeExpertBias, Takes::nothing,
             "model.router_bias"},
    FlagInfo{"--moe-router-num-groups", Flag::moeNumGroups, Takes::value, "model.router_groups"},
    FlagInfo{"--moe-router-group-topk", Flag::moeGroupTopk, Takes::value,
             "model.router_group_limit"},
    FlagInfo{"--moe-token-dispatcher-type", Flag::moeDispatcher, Takes::value, "ep_dispatcher"},
    FlagInfo{"--moe-enable-deepep", Flag::moeEnableDeepep, Takes::nothing, "ep_dispatcher"},
    FlagInfo{"--moe-flex-dispatcher-backend", Flag::moeFlexBackend, Takes::value, "ep_dispatcher"},
    FlagInfo{"--moe-expert-capacity-factor", Flag::moeCapacity, Takes::value,
             "expert_capacity_factor"},
    FlagInfo{"--moe-pad-expert-input-to-capacity", Flag::moePadToCapacity, Takes::nothing,
             "pad_to_capacity"},
    FlagInfo{"--moe-router-force-load-balancing", Flag::moeForceBalance, Takes::nothing,
             "expert_rank_load"},
    FlagInfo{"--cuda-graph-impl", Flag::cudaGraphImpl, Takes::value, "full_cuda_graph"},
    FlagInfo{"--cuda-graph-scope", Flag::cudaGraphScope, Takes::values, "full_cuda_graph"},
    FlagInfo{"--window-size", Flag::windowSize, Takes::value, "model.sliding_window"},
    FlagInfo{"--window-attn-skip-freq", Flag::windowSkipFreq, Takes::value,
             "model.full_attention_period"},
    FlagInfo{"--multi-latent-attention", Flag::mla, Takes::nothing, "model.kv_lora_rank"},
    FlagInfo{"--kv-lora-rank", Flag::kvLoraRank, Takes::value, "model.kv_lora_rank"},
    FlagInfo{"--q-lora-rank", Flag::qLoraRank, Takes::value, "model.q_lora_rank"},
    FlagInfo{"--qk-head-dim", Flag::qkHeadDim, Takes::value, "model.head_dim"},
    FlagInfo{"--qk-pos-emb-head-dim", Flag::qkPosDim, Takes::value, "model.rope_head_dim"},
    FlagInfo{"--v-head-dim", Flag::vHeadDim, Takes::value, "model.v_head_dim"},
    FlagInfo{"--nproc_per_node", Flag::nprocPerNode, Takes::value, "devices"},
    FlagInfo{"--nproc-per-node", Flag::nprocPerNode, Takes::value, "devices"},
    FlagInfo{"--nnodes", Flag::nnodes, Takes::value, "devices"},
};

// Flags Parascope reads no value from, by name or by prefix (a trailing *), and why.
struct IgnoredFlag
{
    std::string_view pattern;
    std::string_view why;
};

constexpr std::string_view kLogging = "logging and profiling only";
constexpr std::string_view kCheckpoint = "checkpoint files: outside the training step";
constexpr std::string_view kData =
    "data and tokenizer files: not part of the step's memory or time";
constexpr std::string_view kOptimizer =
    "an optimizer or schedule value: changes what is learned, not memory or step time";
constexpr std::string_view kKernel = "a kernel or fusion choice Parascope does not model";
constexpr std::string_view kLauncher = "a launcher setting: where the processes meet, not how "
                                       "many";

constexpr std::array kIgnoredFlags{
    IgnoredFlag{"--use-mcore-models", "the implementation: Parascope models Megatron-core's "
                                      "layers"},
    IgnoredFlag{"--transformer-impl", "the implementation: Parascope models Megatron-core's "
                                      "layers"},
    IgnoredFlag{"--use-legacy-models", "the implementation: Parascope models Megatron-core's "
                                       "layers"},
    IgnoredFlag{"--spec", "the implementation: Parascope models Megatron-core's layers"},
    IgnoredFlag{"--log-*", kLogging},
    IgnoredFlag{"--tensorboard-*", kLogging},
    IgnoredFlag{"--wandb-*", kLogging},
    IgnoredFlag{"--timing-log-*", kLogging},
    IgnoredFlag{"--profile*", kLogging},
    IgnoredFlag{"--record-memory-history", kLogging},
    IgnoredFlag{"--save*", kCheckpoint},
    IgnoredFlag{"--load", kCheckpoint},
    IgnoredFlag{"--pretrained-checkpoint", kCheckpoint},
    IgnoredFlag{"--ckpt-*", kCheckpoint},
    IgnoredFlag{"--async-save", kCheckpoint},
    IgnoredFlag{"--use-dist-ckpt", kCheckpoint},
    IgnoredFlag{"--dist-ckpt-*", kCheckpoint},
    IgnoredFlag{"--no-load-*", kCheckpoint},
    IgnoredFlag{"--no-save-*", kCheckpoint},
    IgnoredFlag{"--finetune", kCheckpoint},
    IgnoredFlag{"--exit-*", "when the run stops: not the step"},
    IgnoredFlag{"--data-*", kData},
    IgnoredFlag{"--train-data-path", kData},
    IgnoredFlag{"--valid-data-path", kData},
    IgnoredFlag{"--test-data-path", kData},
    IgnoredFlag{"--split", kData},
    IgnoredFlag{"--mock-data", kData},
    IgnoredFlag{"--num-workers", kData},
    IgnoredFlag{"--vocab-file", kData},
    IgnoredFlag{"--merge-file", kData},
    IgnoredFlag{"--tokenizer-*", kData},
    IgnoredFlag{"--tiktoken-*", kData},
    IgnoredFlag{"--no-mmap-bin-files", kData},
    IgnoredFlag{"--no-create-attention-mask-in-dataloader", kData},
    IgnoredFlag{"--dataloader-type", kData},
    IgnoredFlag{"--reset-*", kData},
    IgnoredFlag{"--eod-mask-loss", kData},
    IgnoredFlag{"--lr*", kOptimizer},
    IgnoredFlag{"--min-lr", kOptimizer},
    IgnoredFlag{"--decoupled-*", kOptimizer},
    IgnoredFlag{"--weight-decay*", kOptimizer},
    IgnoredFlag{"--start-weight-decay", kOptimizer},
    IgnoredFlag{"--end-weight-decay", kOptimizer},
    IgnoredFlag{"--adam-*", kOptimizer},
    IgnoredFlag{"--sgd-*", kOptimizer},
    IgnoredFlag{"--clip-grad", kOptimizer},
    IgnoredFlag{"--init-method-std", kOptimizer},
    IgnoredFlag{"--seed", kOptimizer},
    IgnoredFlag{"--train-iters", kOptimizer},
    IgnoredFlag{"--train-samples", kOptimizer},
    IgnoredFlag{"--rampup-batch-size", "a batch-size ramp: Parascope models the full "
                                       "--global-batch-size"},
    IgnoredFlag{"--step-batch-size-schedule", "a batch-size ramp: Parascope models the full "
                                              "--global-batch-size"},
    IgnoredFlag{"--loss-scale*", kOptimizer},
    IgnoredFlag{"--initial-loss-scale", kOptimizer},
    IgnoredFlag{"--min-loss-scale", kOptimizer},
    IgnoredFlag{"--hysteresis", kOptimizer},
    IgnoredFlag{"--optimizer", "Parascope counts Adam's two FP32 states (the default)"},
    IgnoredFlag{"--eval-*", "evaluation runs outside the training step"},
    IgnoredFlag{"--use-flash-attn", "flash attention is the profile's attention=flash"},
    IgnoredFlag{"--manual-gc*", "Python garbage collection timing"},
    IgnoredFlag{"--empty-unused-memory-level",
                "the allocator's cache: Parascope counts what is allocated"},
    IgnoredFlag{"--distributed-*", kLauncher},
    IgnoredFlag{"--calculate-per-token-loss", "how the loss is averaged: no effect on memory or "
                                              "step time"},
    IgnoredFlag{"--cross-entropy-*", kKernel},
    IgnoredFlag{"--no-*-fusion", kKernel},
    IgnoredFlag{"--*-fusion", kKernel},
    IgnoredFlag{"--no-persist-layer-norm", kKernel},
    IgnoredFlag{"--attention-softmax-in-fp32", kKernel},
    IgnoredFlag{"--rotary-*", "rotary frequencies: no parameters, no effect on memory or time"},
    IgnoredFlag{"--use-rope-scaling", "rotary frequencies: no parameters, no effect on memory "
                                      "or time"},
    IgnoredFlag{"--rope-scaling-factor", "rotary frequencies: no parameters, no effect on "
                                         "memory or time"},
    IgnoredFlag{"--apply-layernorm-1p", "a norm's parametrisation: same parameter count"},
    IgnoredFlag{"--norm-epsilon", "a norm's epsilon: no effect on memory or time"},
    IgnoredFlag{"--init-*", kOptimizer},
    IgnoredFlag{"--fp8-*", "FP8 scaling details beyond the recipe (--fp8-recipe): no effect "
                           "on memory or time"},
    IgnoredFlag{"--moe-*", "MoE routing and dispatch details: what Parascope times of them is "
                           "the busiest expert rank's load, expert_rank_load (docs/experts.md, "
                           "\"Routing imbalance\")"},
    IgnoredFlag{"--mtp-*", "multi-token prediction's loss weight and logging: no effect on "
                           "memory or time"},
    IgnoredFlag{"--nccl-communicator-config-path",
                "a YAML file the import does not open: set dp_collective_units to its dp and "
                "dp_cp communicators' max_ctas (docs/step_time.md, \"Capped CTAs\")"},
    IgnoredFlag{"--use-torch-fsdp2", "FSDP2 is not modelled under the megatron profile "
                                     "(docs/frameworks.md): import a torchtitan TOML for it"},
    IgnoredFlag{"--use-megatron-fsdp", "Megatron-FSDP is not modelled under the megatron "
                                       "profile (docs/frameworks.md)"},
    IgnoredFlag{"--no-align-param-gather",
                "Parascope times the interleaved schedule's gathers as Megatron-LM launches "
                "them by default, every stage's first chunks at once (align_param_gather), and "
                "a run without it the same (docs/step_time.md, \"A later stage's one bucket\")"},
    IgnoredFlag{"--node_rank", kLauncher},
    IgnoredFlag{"--node-rank", kLauncher},
    IgnoredFlag{"--master_addr", kLauncher},
    IgnoredFlag{"--master-addr", kLauncher},
    IgnoredFlag{"--master_port", kLauncher},
    IgnoredFlag{"--master-port", kLauncher},
    IgnoredFlag{"--rdzv*", kLauncher},
    IgnoredFlag{"--standalone", kLauncher},
    IgnoredFlag{"--no-check-for-nan-in-loss-and-grad", "a check: no effect on memory or time"},
    IgnoredFlag{"--check-for-*", "a check: no effect on memory or time"},
};

// Whether `name` fits `pattern`, whose one '*' stands for any text.
bool fitsPattern(std::string_view name, std::string_view pattern)
{
    const std::size_t star = pattern.find('*');
    if (star == std::string_view::npos)
        return name == pattern;
    const std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
    return name.size() >= head.size() + tail.size() && name.starts_with(head) &&
           name.ends_with(tail);
}

const FlagInfo *findFlag(std::string_view name)
{
    for (const FlagInfo &f : kFlags)
        if (f.name == name)
            return &f;
    return nullptr;
}

std::string_view ignoredWhy(std::string_view name)
{
    for (const IgnoredFlag &f : kIgnoredFlags)
        if (fitsPattern(name, f.pattern))
            return f.why;
    return "not a setting Parascope models";
}

// One flag as the file gives it (the last time, as argparse keeps it).
struct Given
{
    std::string name;
    std::string value; // "" for a switch; values of nargs='+' joined by spaces
};

// Megatron-LM's list expressions of --moe-layer-freq: "([0]*3+[1]*58)", "[1,0,1,0]".
std::optional<std::vector<int>> layerPattern(std::string_view text)
{
    std::size_t i = 0;
    bool ok = true;
    const auto skip = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
    };
    const auto number = [&]() -> long long {
        skip();
        const std::size_t start = i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
            ++i;
        const auto v = parseInteger(text.substr(start, i - start));
        ok = ok && v && *v <= 100000;
        return v.value_or(0);
    };
    std::function<std::vector<int>()> sum;
    const auto term = [&]() -> std::vector<int> {
        skip();
        std::vector<int> v;
        if (i < text.size() && text[i] == '(') {
            ++i;
            v = sum();
            skip();
            ok = ok && i < text.size() && text[i] == ')';
            ++i;
        } else if (i < text.size() && text[i] == '[') {
            ++i;
            for (skip(); ok && i < text.size() && text[i] != ']'; skip()) {
                v.push_back(int(number()));
                skip();
                if (i < text.size() && text[i] == ',')
                    ++i;
            }
            ok = ok && i < text.size();
            ++i;
        } else {
            ok = false;
        }
        skip();
        if (ok && i < text.size() && text[i] == '*') {
            ++i;
            const long long times = number();
            std::vector<int> repeated;
            for (long long k = 0; ok && k < times && repeated.size() < 100000; ++k)
                repeated.insert(repeated.end(), v.begin(), v.end());
            v = std::move(repeated);
        }
        return v;
    };
    sum = [&]() -> std::vector<int> {
        std::vector<int> v = term();
        for (skip(); ok && i < text.size() && text[i] == '+'; skip()) {
            ++i;
            const std::vector<int> more = term();
            v.insert(v.end(), more.begin(), more.end());
        }
        return v;
    };
    std::vector<int> v = sum();
    skip();
    if (!ok || i != text.size())
        return std::nullopt;
    return v;
}

class Reader
{
public:
    Reader(const core::Scenario &base, const core::Presets &presets, const ImportOptions &options,
           ImportedConfig &out)
        : m_base(base), m_presets(presets), m_options(options), m_out(out)
    {}

    std::optional<core::InputError> read(const std::vector<std::string> &args)
    {
        if (auto error = collect(args))
            return error;
        setTp();
        core::Scenario s = m_base;
        core::applyFramework(s, core::Framework::megatron);
        if (auto error = readModel(s))
            return error;
        if (auto error = readLayout(s))
            return error;
        // Flags that count only beside another one the file does not give.
        for (const auto &entry : m_given) {
            // clang 14 cannot capture a structured binding: the entry's name, by value.
            const std::string name = entry.second.name;
            const auto named = [&name](const auto &field) { return field.name == name; };
            if (std::none_of(m_out.read.begin(), m_out.read.end(), named) &&
                std::none_of(m_out.ignored.begin(), m_out.ignored.end(), named))
                m_out.ignored.push_back(
                    {name, "Megatron-LM uses it only beside a flag this file does not give"});
        }
        m_out.scenario = s;
        return std::nullopt;
    }

private:
    std::optional<core::InputError> collect(const std::vector<std::string> &args)
    {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string &word = args[i];
            if (!word.starts_with("-") || word == "-" || word == "--") {
                m_out.ignored.push_back({word, "not an argument of Megatron-LM's"});
                continue;
            }
            const std::size_t eq = word.find('=');
            const std::string name = word.substr(0, eq);
            const FlagInfo *info = findFlag(name);
            const auto takesNext = [&](std::size_t k) {
                return k < args.size() && !args[k].starts_with("--");
            };
            std::string value;
            if (eq != std::string::npos) {
                value = word.substr(eq + 1);
            } else if (info && info->takes != Takes::nothing) {
                if (!takesNext(i + 1))
                    return core::InputError{name, "expects a value, and none follows it"};
                value = args[++i];
                while (info->takes == Takes::values && takesNext(i + 1))
                    value += " " + args[++i];
            } else if (!info && takesNext(i + 1)) {
                value = args[++i];
            }
            if (!info) {
                m_out.ignored.push_back({name, std::string(ignoredWhy(name))});
                continue;
            }
            if (m_given.count(info->flag))
                m_out.ignored.push_back(
                    {m_given[info->flag].name,
                     "given again later: the last one counts, as argparse keeps it"});
            m_given[info->flag] = {name, value};
        }
        return std::nullopt;
    }

    static bool isModelFlag(Flag flag)
    {
        for (const FlagInfo &f : kFlags)
            if (f.flag == flag)
                return f.key.starts_with("model.");
        return false;
    }

    const Given *given(Flag flag) const
    {
        const auto it = m_given.find(flag);
        return it == m_given.end() ? nullptr : &it->second;
    }

    void noteRead(Flag flag)
    {
        const Given *g = given(flag);
        for (const FlagInfo &f : kFlags)
            if (f.flag == flag && g) {
                m_out.read.push_back(
                    {g->name, g->value.empty() ? "on" : g->value, std::string(f.key)});
                return;
            }
    }

    bool has(Flag flag)
    {
        if (!given(flag))
            return false;
        noteRead(flag);
        return true;
    }

    // A whole number of at least `min`, or the flag's default when it is absent.
    std::variant<int, core::InputError> integer(Flag flag, int fallback, int min = 1)
    {
        const Given *g = given(flag);
        if (!g)
            return fallback;
        noteRead(flag);
        const auto v = parseInteger(g->value);
        // Model sizes up to ten million keep Parascope's products in range.
        const long long max = std::string_view(g->name).starts_with("--") && isModelFlag(flag)
                                  ? 10'000'000
                                  : 1'000'000'000;
        if (!v || *v < min || *v > max)
            return core::InputError{g->name, "expects a whole number from " + std::to_string(min) +
                                                 " to " + std::to_string(max) + ", not '" +
                                                 g->value + "'"};
        return int(*v);
    }

    std::optional<double> number(Flag flag)
    {
        const Given *g = given(flag);
        if (!g)
            return std::nullopt;
        noteRead(flag);
        try {
            std::size_t used = 0;
            const double v = std::stod(g->value, &used);
            if (used == g->value.size())
                return v;
        } catch (const std::exception &) {
        }
        return std::nan("");
    }

    std::optional<core::InputError> readModel(core::Scenario &s)
    {
        const bool any = std::any_of(kFlags.begin(), kFlags.end(), [&](const FlagInfo &f) {
            return f.key.starts_with("model.") && given(f.flag);
        });
        if (!any) {
            m_out.assumptions.push_back("no model flags: kept the model " + s.model);
            return std::nullopt;
        }
        for (Flag f : {Flag::numLayers, Flag::hiddenSize, Flag::numHeads})
            if (!given(f))
                for (const FlagInfo &info : kFlags)
                    if (info.flag == f)
                        return core::InputError{std::string(info.name),
                                                "missing: the model flags need the layers, the "
                                                "hidden size and the attention heads"};
        core::ModelSpec m;
        int *const targets[] = {&m.layers, &m.hidden, &m.heads};
        const Flag sizes[] = {Flag::numLayers, Flag::hiddenSize, Flag::numHeads};
        for (int k = 0; k < 3; ++k) {
            const auto v = integer(sizes[k], 0);
            if (auto *e = std::get_if<core::InputError>(&v))
                return *e;
            *targets[k] = std::get<int>(v);
        }
        m.gatedMlp = has(Flag::swiglu);
        // megatron/training/arguments.py: 4h, or 2/3 of it rounded down to 64 with SwiGLU.
        const int ffnDefault = m.gatedMlp ? int((4.0 * m.hidden * 2 / 3) / 64) * 64 : 4 * m.hidden;
        const auto ffn = integer(Flag::ffnHiddenSize, ffnDefault);
        if (auto *e = std::get_if<core::InputError>(&ffn))
            return *e;
        m.ffnHidden = std::get<int>(ffn);
        if (!given(Flag::ffnHiddenSize))
            m_out.assumptions.push_back("--ffn-hidden-size not given: Megatron-LM's default " +
                                        std::to_string(m.ffnHidden));
        return readModelRest(s, m);
    }

    std::optional<core::InputError> readModelRest(core::Scenario &s, core::ModelSpec &m)
    {
        const auto take = [&](Flag flag, int fallback, int &into, int min = 1) {
            const auto v = integer(flag, fallback, min);
            if (auto *e = std::get_if<core::InputError>(&v))
                return std::optional(*e);
            into = std::get<int>(v);
            return std::optional<core::InputError>();
        };
        // Grouped-query attention: --num-query-groups counts only with
        // --group-query-attention (transformer_config.py); multi-head otherwise.
        const bool gqa = has(Flag::gqa);
        int groups = m.heads;
        if (gqa) {
            if (auto e = take(Flag::queryGroups, 1, groups))
                return e;
        } else if (given(Flag::queryGroups)) {
            m_out.ignored.push_back(
                {"--num-query-groups", "counts only with --group-query-attention"});
        }
        m.kvHeads = groups;
        if (m.heads % groups != 0)
            return core::InputError{"--num-query-groups", "must divide --num-attention-heads (" +
                                                              std::to_string(m.heads) + ")"};
        int kvChannels = m.hidden / m.heads;
        if (auto e = take(Flag::kvChannels, kvChannels, kvChannels))
            return e;
        if (1LL * kvChannels * m.heads != m.hidden)
            m.headDimOverride = kvChannels;
        m.qkNorm = has(Flag::qkLayernorm);
        // Megatron-LM ties the output layer to the embedding unless told not to.
        m.tiedEmbeddings = !has(Flag::untie);
        m.bias = !has(Flag::disableBiasLinear);
        // --add-qkv-bias: biases on the QKV projection alone (transformer_config.py,
        // add_qkv_bias); with every linear layer biased it adds nothing.
        m.qkvBias = has(Flag::addQkvBias) && !m.bias;
        if (const Given *g = given(Flag::normalization)) {
            noteRead(Flag::normalization);
            if (g->value == "LayerNorm" && !m.bias)
                m_out.assumptions.push_back(
                    "LayerNorm without linear biases: Parascope counts the norms' biases with "
                    "the linear layers' (bias = false drops both)");
        }
        // transformer_config.py: attention_dropout and hidden_dropout default to 0.1.
        const auto attn = number(Flag::attentionDropout), hidden = number(Flag::hiddenDropout);
        for (const auto &[v, name] :
             {std::pair{attn, "--attention-dropout"}, std::pair{hidden, "--hidden-dropout"}})
            if (v && !(*v >= 0 && *v < 1))
                return core::InputError{name, "expects a probability from 0 to 1"};
        m.dropout = attn.value_or(0.1) > 0 || hidden.value_or(0.1) > 0;
        int positions = 0;
        if (auto e = take(Flag::maxPositions, 0, positions))
            return e;
        m.contextWindow = positions;
        // --position-embedding-type defaults to learned_absolute (arguments.py).
        std::string type = "learned_absolute";
        if (const Given *g = given(Flag::positionEmbedding)) {
            noteRead(Flag::positionEmbedding);
            type = g->value;
        }
        if (type == "learned_absolute") {
            if (positions == 0)
                return core::InputError{"--max-position-embeddings",
                                        "needed with learned absolute position embeddings "
                                        "(--position-embedding-type learned_absolute, "
                                        "Megatron-LM's default)"};
            m.learnedPositions = positions;
        }
        // Mixture of experts.
        if (auto e = take(Flag::numExperts, 0, m.experts, 0))
            return e;
        if (m.experts > 0) {
            if (auto e = take(Flag::moeTopk, 2, m.expertsPerToken)) // transformer_config.py
                return e;
            if (auto e = take(Flag::moeFfn, m.ffnHidden, m.expertFfnHidden))
                return e;
            int shared = 0;
            if (auto e = take(Flag::moeShared, 0, shared, 0))
                return e;
            if (shared % m.expertFfnHidden != 0)
                return core::InputError{"--moe-shared-expert-intermediate-size",
                                        "Parascope counts shared experts as whole experts of "
                                        "--moe-ffn-hidden-size (" +
                                            std::to_string(m.expertFfnHidden) + ")"};
            m.sharedExperts = shared / m.expertFfnHidden;
            m.routerBias = has(Flag::moeExpertBias);
            if (auto e = readLayerFreq(m))
                return e;
            // Group-limited routing (transformer_config.py, moe_router_num_groups and
            // moe_router_group_topk): the group top-k turns it on and needs the groups, at
            // most as many as there are; the groups alone route over every expert
            // (moe_utils.py, topk_routing_with_score_function: `if group_topk`).
            if (auto e = take(Flag::moeNumGroups, 0, m.routerGroups, 0))
                return e;
            if (auto e = take(Flag::moeGroupTopk, 0, m.routerGroupLimit, 0))
                return e;
            if (m.routerGroupLimit > 0 && m.routerGroups == 0)
                return core::InputError{"--moe-router-num-groups",
                                        "group-limited routing (--moe-router-group-topk) needs "
                                        "--moe-router-num-groups"};
            if (m.routerGroups > 0 && m.routerGroupLimit == 0) {
                m_out.assumptions.push_back("--moe-router-num-groups " +
                                            std::to_string(m.routerGroups) +
                                            " without --moe-router-group-topk limits nothing: "
                                            "routing over every expert");
                m.routerGroups = 0;
            }
            if (m.routerGroups > 0 && m.experts % m.routerGroups != 0)
                return core::InputError{"--moe-router-num-groups",
                                        std::to_string(m.routerGroups) +
                                            " groups do not divide the " +
                                            std::to_string(m.experts) + " experts"};
            if (m.routerGroupLimit > m.routerGroups)
                return core::InputError{"--moe-router-group-topk",
                                        std::to_string(m.routerGroupLimit) + " of only " +
                                            std::to_string(m.routerGroups) + " groups"};
            if (m.routerGroups > 0 && m.routerGroupLimit == m.routerGroups) {
                m_out.assumptions.push_back("--moe-router-group-topk " +
                                            std::to_string(m.routerGroupLimit) + " of " +
                                            std::to_string(m.routerGroups) +
                                            " groups limits nothing: routing over every expert");
                m.routerGroups = m.routerGroupLimit = 0;
            }
            // moe_utils.py, group_limited_topk: enough experts in the chosen groups.
            if (m.routerGroups > 0 &&
                std::int64_t{m.routerGroupLimit} * (m.experts / m.routerGroups) < m.expertsPerToken)
                return core::InputError{"--moe-router-group-topk",
                                        std::to_string(m.routerGroupLimit) +
                                            " groups hold fewer experts than --moe-router-topk"};
        }
        // Multi-head latent attention; the defaults of arguments.py.
        if (has(Flag::mla)) {
            if (auto e = take(Flag::kvLoraRank, 32, m.kvLoraRank))
                return e;
            if (auto e = take(Flag::qLoraRank, 0, m.qLoraRank, 0))
                return e;
            if (auto e = take(Flag::qkHeadDim, 128, m.headDimOverride))
                return e;
            if (auto e = take(Flag::qkPosDim, 64, m.ropeHeadDim))
                return e;
            if (auto e = take(Flag::vHeadDim, 128, m.vHeadDim))
                return e;
            m.kvHeads = m.heads;
        }
        if (auto e = readWindow(m))
            return e;
        return readVocabulary(s, m);
    }

    // Sliding-window attention: --window-size "left,right" keys around each query, -1 for
    // no limit (transformer_config.py, window_size; utils.py, get_sliding_window_causal_mask
    // keeps keys from q - left to q + right), so a causal window of w tokens is w - 1,0; layer
    // i (from 1) skips it when i % --window-attn-skip-freq == 0, or where a list has a 0
    // (utils.py, is_layer_window_attention).
    std::optional<core::InputError> readWindow(core::ModelSpec &m)
    {
        const Given *size = given(Flag::windowSize);
        if (!size)
            return std::nullopt;
        noteRead(Flag::windowSize);
        std::string text = size->value;
        if (text.size() >= 2 && text.front() == '(' && text.back() == ')')
            text = text.substr(1, text.size() - 2); // arguments.py, tuple_type
        const std::size_t comma = text.find(',');
        const auto trimmed = [](std::string_view part) {
            while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front())))
                part.remove_prefix(1);
            while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back())))
                part.remove_suffix(1);
            return part;
        };
        const auto left = parseInteger(trimmed(std::string_view(text).substr(0, comma)));
        const auto right = comma == std::string::npos
                               ? std::nullopt
                               : parseInteger(trimmed(std::string_view(text).substr(comma + 1)));
        if (!left || !right || *left < -1 || *left >= core::limits::kSeqLen ||
            (*right != 0 && *right != -1))
            return core::InputError{size->name,
                                    "expects the tokens before and after each query, such as "
                                    "127,0 for a causal window of 128 (before: -1 or 0 to " +
                                        std::to_string(core::limits::kSeqLen - 1) +
                                        "; after: 0 or -1), not '" + size->value + "'"};
        if (*left == -1)
            return std::nullopt; // no limit on either side: every layer attends to everything
        m.slidingWindow = int(*left) + 1;
        const Given *freq = given(Flag::windowSkipFreq);
        if (!freq)
            return std::nullopt; // transformer_config.py: None, every layer windowed
        noteRead(Flag::windowSkipFreq);
        PeriodFit fit;
        if (const auto k = parseInteger(freq->value)) {
            if (*k < 1)
                return core::InputError{freq->name, "expects 1 or more"};
            fit.period = *k > m.layers ? 0 : int(*k); // beyond the layers: none is full
        } else if (const auto pattern = layerPattern(freq->value);
                   pattern && int(pattern->size()) == m.layers) {
            std::vector<bool> sliding;
            for (int v : *pattern)
                sliding.push_back(v != 0);
            fit = closestFullAttentionPeriod(sliding);
            if (fit.matching != m.layers)
                m_out.assumptions.push_back(
                    "--window-attn-skip-freq " + freq->value + ": approximated as " +
                    fullAttentionText(fit.period) + ", " + std::to_string(fit.matching) +
                    " of the " + std::to_string(m.layers) + " layers as the list has them");
        } else {
            return core::InputError{freq->name, "expects a whole number or a list of "
                                                "--num-layers 1s (window) and 0s (full "
                                                "attention) such as ([1]*3+[0])*12"};
        }
        m.fullAttentionPeriod = fit.period == 1 ? 0 : fit.period;
        m.slidingWindow = fit.period == 1 ? 0 : m.slidingWindow;
        return std::nullopt;
    }

    std::optional<core::InputError> readLayerFreq(core::ModelSpec &m)
    {
        const Given *g = given(Flag::moeLayerFreq);
        if (!g)
            return std::nullopt;
        noteRead(Flag::moeLayerFreq);
        if (const auto k = parseInteger(g->value)) {
            if (*k < 1 || *k > m.layers)
                return core::InputError{g->name, "expects 1 to --num-layers"};
            m.moeLayerPeriod = int(*k);
            if (*k > 1)
                m_out.assumptions.push_back(
                    "--moe-layer-freq " + g->value +
                    ": Megatron-LM puts experts in layers 0, k, 2k...; Parascope in layers k-1, "
                    "2k-1... (the same count when k divides the layers)");
            return std::nullopt;
        }
        const auto pattern = layerPattern(g->value);
        if (!pattern || int(pattern->size()) != m.layers)
            return core::InputError{g->name, "expects a whole number or a list of --num-layers "
                                             "0s and 1s such as ([0]*3+[1]*58)"};
        const auto first = std::find(pattern->begin(), pattern->end(), 1);
        m.denseLayers = int(first - pattern->begin());
        const auto second =
            first == pattern->end() ? first : std::find(first + 1, pattern->end(), 1);
        m.moeLayerPeriod = second == pattern->end() ? 1 : int(second - first);
        bool exact = first != pattern->end();
        for (int i = 0; exact && i < m.layers; ++i)
            exact = core::isMoeLayer(m, i) == ((*pattern)[std::size_t(i)] == 1);
        if (!exact)
            m_out.assumptions.push_back("--moe-layer-freq " + g->value + ": approximated as " +
                                        std::to_string(m.denseLayers) +
                                        " dense layers, then experts every " +
                                        std::to_string(m.moeLayerPeriod) + " layers");
        return std::nullopt;
    }

    std::optional<core::InputError> readVocabulary(core::Scenario &s, core::ModelSpec &m)
    {
        int divisible = 128; // arguments.py: --make-vocab-size-divisible-by
        const auto d = integer(Flag::vocabDivisible, divisible);
        if (auto *e = std::get_if<core::InputError>(&d))
            return *e;
        divisible = std::get<int>(d);
        const core::ModelSpec *preset = nullptr;
        if (given(Flag::vocabSize)) {
            const auto v = integer(Flag::vocabSize, 0);
            if (auto *e = std::get_if<core::InputError>(&v))
                return *e;
            m.vocab = std::get<int>(v);
            preset = matchingPreset(m, m_presets);
        } else {
            // The vocabulary comes from the tokenizer's files, which the arguments only name.
            for (const core::ModelSpec &p : m_presets.models) {
                m.vocab = p.vocab;
                if (matchingPreset(m, m_presets) == &p) {
                    preset = &p;
                    break;
                }
            }
            if (!preset)
                return core::InputError{"--vocab-size",
                                        "the vocabulary comes from the tokenizer, which the file "
                                        "only names, and no preset has these model flags: give "
                                        "--vocab-size"};
            m_out.assumptions.push_back("the vocabulary is the tokenizer's, not in the file: " +
                                        formatCount(preset->vocab).toStdString() +
                                        " from the preset " + preset->id +
                                        ", whose other sizes the flags match");
        }
        // megatron/core/tokenizers/utils/build_tokenizer.py, vocab_size_with_padding.
        const long long multiple = 1LL * divisible * std::max(1, m_tp);
        const long long padded = (m.vocab + multiple - 1) / multiple * multiple;
        if (padded != m.vocab)
            m_out.assumptions.push_back(
                "Megatron-LM pads the vocabulary to a multiple of " + std::to_string(divisible) +
                " x T = " + std::to_string(multiple) + ", " + formatCount(padded).toStdString() +
                " rows; Parascope counts the " + formatCount(m.vocab).toStdString() + " tokens");
        if (preset) {
            core::setField(s, "model", preset->id);
            return std::nullopt;
        }
        m.id = !m_options.modelId.empty() ? m_options.modelId : fileStem();
        m.name = m.id;
        m.source = "Megatron-LM arguments" +
                   (m_options.fileName.empty() ? std::string() : " in " + m_options.fileName);
        core::setField(s, "model", m.id);
        m_out.model = m;
        return std::nullopt;
    }

    std::string fileStem() const
    {
        std::string stem = m_options.fileName;
        const std::size_t dot = stem.find('.');
        if (dot != std::string::npos && dot > 0)
            stem.resize(dot);
        return stem.empty() ? "megatron-model" : stem;
    }

    std::optional<core::InputError> readLayout(core::Scenario &s)
    {
        struct Degree
        {
            Flag flag;
            int *into;
        };
        int ep = 1, expertTp = 0;
        for (const Degree &d :
             {Degree{Flag::tp, &s.tp}, Degree{Flag::pp, &s.pp}, Degree{Flag::cp, &s.cp},
              Degree{Flag::ep, &ep}, Degree{Flag::expertTp, &expertTp}}) {
            const auto v = integer(d.flag, d.flag == Flag::expertTp ? 0 : 1);
            if (auto *e = std::get_if<core::InputError>(&v))
                return *e;
            *d.into = std::get<int>(v);
        }
        s.ep = ep;
        s.expertTp = expertTp;
        if (auto e = readCp(s))
            return e;
        if (auto e = readWorld(s))
            return e;
        if (auto e = readBatch(s))
            return e;
        // arguments.py: --cpu-offloading-num-layers, 0 by default; above 0 it turns
        // cpu_offloading on (docs/activations.md, "Offloaded layers").
        {
            const auto offload = integer(Flag::cpuOffloadingNumLayers, 0, 0);
            if (auto *e = std::get_if<core::InputError>(&offload))
                return *e;
            s.offloadLayers = std::get<int>(offload);
        }
        // arguments.py: --mtp-num-layers, None by default (no multi-token prediction).
        {
            const auto mtp = integer(Flag::mtpLayers, 0, 0);
            if (auto *e = std::get_if<core::InputError>(&mtp))
                return *e;
            s.mtpLayers = std::get<int>(mtp);
        }
        if (auto e = readPipeline(s))
            return e;
        if (auto e = readRecompute(s))
            return e;
        // --sequence-parallel is off by default and turned off with T = 1 (arguments.py).
        s.sequenceParallel = has(Flag::sequenceParallel) && s.tp > 1;
        if (given(Flag::sequenceParallel) && s.tp == 1)
            m_out.assumptions.push_back("--sequence-parallel with T = 1: Megatron-LM turns it off");
        s.tpOverlap = has(Flag::tpCommOverlap);
        s.epOverlap = has(Flag::overlapMoeComm);
        // The dispatcher (transformer_config.py, moe_token_dispatcher_type: allgather by
        // default, alltoall, or flex with DeepEP, HybridEP or NCCL EP, moe_flex_dispatcher_backend;
        // older releases' moe_enable_deepep).
        if (const Given *g = given(Flag::moeDispatcher)) {
            noteRead(Flag::moeDispatcher);
            if (g->value == "flex") {
                s.epDispatcher = core::EpDispatcher::flex;
            } else if (g->value == "alltoall") {
                s.epDispatcher = core::EpDispatcher::alltoall;
            } else if (g->value == "allgather") {
                s.epDispatcher = core::EpDispatcher::alltoall;
                m_out.assumptions.push_back(
                    "--moe-token-dispatcher-type allgather: Parascope times the all-to-all "
                    "dispatcher (ep_dispatcher=alltoall); the all-gather one moves every token "
                    "to every expert-parallel rank");
            } else {
                return core::InputError{"--moe-token-dispatcher-type",
                                        "expected allgather, alltoall or flex, got " + g->value};
            }
        } else {
            // Not the starting scenario's: the file's run uses Megatron-LM's default.
            s.epDispatcher = core::EpDispatcher::alltoall;
            if (s.ep > 1 && !given(Flag::moeEnableDeepep))
                m_out.assumptions.push_back(
                    "no --moe-token-dispatcher-type: Megatron-LM's default is the all-gather "
                    "dispatcher, which moves every token to every expert-parallel rank; "
                    "Parascope times the all-to-all one (ep_dispatcher=alltoall)");
        }
        // DeepEP and HybridEP send a token once to each node (DeepSeek-V3 Technical Report,
        // §3.2.2; docs/experts.md), as NCCL EP's high-throughput mode does (NVIDIA/nccl,
        // contrib/nccl_ep/README.md): each backend is the flex dispatcher.
        const bool flexType = s.epDispatcher == core::EpDispatcher::flex;
        if (const Given *g = given(Flag::moeFlexBackend)) {
            noteRead(Flag::moeFlexBackend);
            if (g->value != "deepep" && g->value != "hybridep" && g->value != "ncclep")
                return core::InputError{"--moe-flex-dispatcher-backend",
                                        "expected deepep, hybridep or ncclep, got " + g->value};
            if (!flexType)
                m_out.assumptions.push_back(
                    "--moe-flex-dispatcher-backend " + g->value +
                    " without --moe-token-dispatcher-type flex: Megatron-LM uses the backend "
                    "only for the flex dispatcher; read as " +
                    std::string(core::toString(s.epDispatcher)));
        }
        // transformer_config.py refuses moe_enable_deepep unless the type is flex.
        if (has(Flag::moeEnableDeepep)) {
            if (!flexType)
                m_out.assumptions.push_back(
                    "--moe-enable-deepep without --moe-token-dispatcher-type flex: Megatron-core "
                    "refuses it (DeepEP needs the flex dispatcher); read as the flex dispatcher");
            s.epDispatcher = core::EpDispatcher::flex;
        }
        // The capacity (transformer_config.py, moe_expert_capacity_factor: None, or a negative
        // value, is dropless) and the padding to it, which needs one.
        s.expertCapacityFactor.reset();
        if (const std::optional<double> cf = number(Flag::moeCapacity)) {
            if (std::isnan(*cf))
                return core::InputError{"--moe-expert-capacity-factor",
                                        "expects a number, not '" +
                                            given(Flag::moeCapacity)->value + "'"};
            if (*cf == 0)
                return core::InputError{"--moe-expert-capacity-factor",
                                        "0 gives every expert a capacity of 0 tokens"};
            if (*cf > 0)
                s.expertCapacityFactor = *cf;
            else
                m_out.assumptions.push_back("--moe-expert-capacity-factor " +
                                            given(Flag::moeCapacity)->value +
                                            ": Megatron-core reads a negative factor as none, "
                                            "dropless");
        }
        // A router forced to balance gives every rank its even share (transformer_config.py,
        // moe_router_force_load_balancing, "for benchmarking"); without it the file does not
        // say what the busiest rank takes (docs/experts.md, "Routing imbalance").
        if (has(Flag::moeForceBalance))
            s.expertRankLoad = 1;
        else if (s.ep > 1)
            m_out.assumptions.push_back(
                "no --moe-router-force-load-balancing: the router trains as it learns, and the "
                "busiest expert rank's share is not in the file: expert_rank_load kept at " +
                core::fieldText(s, "expert_rank_load") +
                " from the starting scenario (1 is balanced); set the run's (docs/experts.md, "
                "\"Routing imbalance\")");
        s.padToCapacity = has(Flag::moePadToCapacity);
        if (s.padToCapacity && !s.expertCapacityFactor)
            return core::InputError{"--moe-pad-expert-input-to-capacity",
                                    "needs --moe-expert-capacity-factor: Megatron-core refuses "
                                    "padding without a capacity"};
        // transformer_config.py: "Flex token dispatcher with deepep backend does not support
        // moe_pad_expert_input_to_capacity" (DeepEP is the flex dispatcher's default backend).
        if (s.padToCapacity && flexType) {
            const Given *backend = given(Flag::moeFlexBackend);
            if (!backend || backend->value == "deepep")
                return core::InputError{"--moe-pad-expert-input-to-capacity",
                                        "Megatron-core refuses it with the flex dispatcher's "
                                        "DeepEP backend (--moe-flex-dispatcher-backend hybridep "
                                        "takes it)"};
        }
        // CUDA graphs (arguments.py, --cuda-graph-impl none, local, transformer_engine or
        // full_iteration; older releases' --cuda-graph-scope full_iteration): only a graph of
        // the whole step changes what Parascope times, the MoE layers' host cost
        // (docs/user-guide/features/cuda_graph.md).
        s.fullCudaGraph = false;
        if (const Given *g = given(Flag::cudaGraphImpl)) {
            noteRead(Flag::cudaGraphImpl);
            if (g->value == "full_iteration")
                s.fullCudaGraph = true;
            else if (g->value != "none" && g->value != "local" && g->value != "transformer_engine")
                return core::InputError{"--cuda-graph-impl",
                                        "expected none, local, transformer_engine or "
                                        "full_iteration, got " +
                                            g->value};
        }
        if (const Given *g = given(Flag::cudaGraphScope)) {
            noteRead(Flag::cudaGraphScope);
            const std::string scopes = " " + g->value + " ";
            if (scopes.find(" full_iteration ") != std::string::npos) {
                s.fullCudaGraph = true;
                m_out.assumptions.push_back("--cuda-graph-scope full_iteration: the older "
                                            "spelling of --cuda-graph-impl full_iteration");
            }
        }
        // Megatron-core moves the weight gradients for the overlap only
        // (transformer_config.py: "overlap_moe_expert_parallel_comm must be enabled when
        // enabling delay_wgrad_compute"); their time is counted either way.
        if (has(Flag::delayWgrad) && !s.epOverlap)
            m_out.assumptions.push_back("--delay-wgrad-compute without "
                                        "--overlap-moe-expert-parallel-comm: Megatron-core "
                                        "refuses it; read as no overlap");
        s.zero = has(Flag::distributedOptimizer) ? 1 : 0;
        if (auto e = readMegatronFsdp(s))
            return e;
        if (auto e = readOptimizerInstances(s))
            return e;
        if (auto e = readFp8Recipe(s))
            return e;
        // initialize.py: order tp-cp-ep-pp-dp with --use-tp-pp-dp-mapping, else tp-cp-ep-dp-pp.
        s.rankOrder =
            has(Flag::tpPpDpMapping) ? core::RankOrder::pipelineInner : core::RankOrder::dataInner;
        // arguments.py: each flag counts its end as a layer of the pipeline split; Parascope
        // counts both or neither.
        const bool embedding = has(Flag::embeddingInSplit), loss = has(Flag::lossInSplit);
        s.endsInPipelineSplit = embedding || loss;
        if (embedding != loss)
            m_out.assumptions.push_back(
                std::string(embedding ? "--account-for-embedding-in-pipeline-split"
                                      : "--account-for-loss-in-pipeline-split") +
                " alone: Parascope counts the embedding and the loss as a layer each, so the "
                "other end's stage holds one layer fewer than Megatron-LM gives it");
        // Without --overlap-grad-reduce the gradient reduction waits for the backward.
        if (has(Flag::overlapGradReduce))
            s.dpOverlap.reset();
        else
            s.dpOverlap = 0.0;
        // Without --overlap-param-gather (off by default: megatron/training/arguments.py) the
        // distributed optimizer gathers the updated parameters in its step.
        s.overlapParamGather = has(Flag::overlapParamGather);
        // --ddp-bucket-size, parameters a bucket; absent, Megatron-LM's own max(40M, 1M x D·C)
        // (distributed_data_parallel.py): dp_bucket_params=auto.
        s.dpBucketParams.reset();
        if (given(Flag::ddpBucketSize)) {
            const auto bucket = integer(Flag::ddpBucketSize, 0);
            if (auto *e = std::get_if<core::InputError>(&bucket))
                return *e;
            s.dpBucketParams = std::get<int>(bucket);
        }
        // transformer_config.py: --fp4-format e2m1 trains in NVFP4 (fp4_recipe nvfp4, the
        // default), and arguments.py refuses it beside --fp8-format.
        if (const Given *fp4 = given(Flag::fp4Format)) {
            noteRead(Flag::fp4Format);
            if (fp4->value != "e2m1")
                return core::InputError{fp4->name, "expects e2m1, not '" + fp4->value + "'"};
            if (given(Flag::fp8Format))
                return core::InputError{fp4->name, "cannot be used with --fp8-format (Megatron-LM "
                                                   "refuses both)"};
            s.precision = core::Precision::nvfp4;
            if (has(Flag::fp4ParamGather))
                m_out.assumptions.push_back(
                    "--fp4-param-gather: the weights are held and gathered in BF16, as without it");
        } else if (has(Flag::fp8Format))
            s.precision = core::Precision::fp8;
        else if (has(Flag::bf16))
            s.precision = core::Precision::bf16;
        else if (has(Flag::fp16))
            s.precision = core::Precision::fp16;
        else
            s.precision = core::Precision::fp32;
        // --fp8-param-gather keeps the compute weights in FP8 (megatron/training/
        // arguments.py); without it, off by default, they stay in BF16.
        s.fp8Params = has(Flag::fp8ParamGather);
        const bool lowPrecision =
            s.precision == core::Precision::fp8 || s.precision == core::Precision::nvfp4;
        if (lowPrecision)
            has(Flag::bf16);
        // --fp8-dot-product-attention runs Transformer Engine's fused attention in FP8: the FP8
        // recipe takes it (core/fp8_utils.py, fp8_dpa), and so does NVFP4's (fp4_utils.py);
        // --fp8-multi-head-attention also hands the projections' FP8 outputs to it (Transformer
        // Engine's fp8_mha needs fp8_dpa). Releases before arguments.py left the field to the
        // TransformerConfig took the flags.
        const bool dpa = has(Flag::fp8Dpa);
        const bool mha = has(Flag::fp8Mha);
        if (dpa || mha) {
            const std::string flag =
                dpa ? "--fp8-dot-product-attention" : "--fp8-multi-head-attention";
            if (lowPrecision)
                s.fp8Attention = true;
            else
                m_out.assumptions.push_back(flag + " without --fp8-format or --fp4-format: no "
                                                   "effect, attention runs in 16 bits");
            if (mha && lowPrecision)
                m_out.assumptions.push_back(
                    "--fp8-multi-head-attention: timed as FP8 attention (fp8_attention); the "
                    "projections' FP8 outputs handed to it are not modelled apart");
        }
        // --fp8-output-proj (transformer_config.py, fp8_output_proj; NVIDIA/Megatron-LM#4825)
        // runs the LM head under the MXFP8 autocast; Megatron-core refuses it without FP8 or
        // with another recipe.
        s.fp8LmHead = false;
        if (has(Flag::fp8OutputProj)) {
            if (s.precision == core::Precision::fp8 && m_mxfp8)
                s.fp8LmHead = true;
            else
                m_out.assumptions.push_back("--fp8-output-proj without --fp8-format and "
                                            "--fp8-recipe mxfp8: Megatron-core refuses it; read "
                                            "as the LM head in 16 bits");
        }
        has(Flag::gradFp32);
        if (has(Flag::gradReduceBf16))
            s.gradPrecision = core::Precision::bf16;
        if (auto e = readOptimizerMoments(s))
            return e;
        if (has(Flag::noGradAccFusion))
            s.fusedGradAccumulation = false;
        if (auto e = readLossFusion(s))
            return e;
        if (has(Flag::noSwigluFusion))
            s.fusedSwiglu = false;
        // --activation-func-fp8-input-store keeps the fused SwiGLU's input in FP8 for the
        // backward (fused_bias_swiglu.py), off by default; transformer_config.py refuses it
        // outside SwiGLU, and mlp.py hands it to the fused kernel only.
        s.fp8ActivationInput = false;
        if (has(Flag::activationFp8Input)) {
            const core::ModelSpec *model =
                m_out.model ? &*m_out.model : core::resolveModel(s, m_presets);
            if (model && !model->gatedMlp)
                m_out.assumptions.push_back("--activation-func-fp8-input-store without "
                                            "--swiglu: Megatron-core refuses it; read as the "
                                            "MLP's input kept in 16 bits");
            else if (!s.fusedSwiglu)
                m_out.assumptions.push_back("--activation-func-fp8-input-store beside "
                                            "--no-bias-swiglu-fusion: no effect, the unfused "
                                            "SwiGLU keeps its input in 16 bits");
            else
                s.fp8ActivationInput = true;
        }
        if (const Given *g = given(Flag::attentionBackend)) {
            noteRead(Flag::attentionBackend);
            // arguments.py: auto, flash, fused, unfused, local; unfused and local
            // materialise the scores, flash is Transformer Engine's FlashAttention backend
            // (the flash-attn package), fused and auto its cuDNN kernels on Hopper.
            if (g->value == "unfused" || g->value == "local") {
                s.attention = core::Attention::eager;
            } else if (g->value == "flash") {
                s.attention = core::Attention::flash2;
                m_out.assumptions.push_back(
                    "--attention-backend flash: FlashAttention-2's kernel (attention=flash2); "
                    "with FlashAttention-3 installed, attention=flash3");
            } else {
                s.attention = core::Attention::flash;
            }
        }
        return std::nullopt;
    }

    std::optional<core::InputError> readCp(core::Scenario &s)
    {
        const Given *g = given(Flag::cpCommType);
        if (!g)
            return std::nullopt;
        noteRead(Flag::cpCommType);
        const std::string first = g->value.substr(0, g->value.find(' '));
        // --cp-comm-type: p2p (a ring, the default), allgather, a2a, a2a+p2p.
        if (first == "p2p")
            s.cpExchange = core::CpExchange::ring;
        else if (first == "allgather" || first == "all_gather")
            s.cpExchange = core::CpExchange::allgather;
        else if (first == "a2a")
            s.cpExchange = core::CpExchange::alltoall;
        else if (first == "a2a+p2p") {
            s.cpExchange = core::CpExchange::ring;
            m_out.assumptions.push_back("--cp-comm-type a2a+p2p: hierarchical; approximated as "
                                        "the ring (p2p) across the whole group");
        } else
            return core::InputError{g->name,
                                    "expects p2p, allgather, a2a or a2a+p2p, not '" + first + "'"};
        if (g->value.find(' ') != std::string::npos)
            m_out.assumptions.push_back("--cp-comm-type per layer: every layer read as " + first);
        return std::nullopt;
    }

    std::optional<core::InputError> readWorld(core::Scenario &s)
    {
        const long long group = 1LL * s.tp * s.cp * s.pp;
        long long world = 0;
        std::string where;
        if (m_options.devices) {
            world = *m_options.devices;
            where = "--devices " + std::to_string(world);
        } else if (given(Flag::nprocPerNode)) {
            int perNode = 1, nodes = 1;
            const auto a = integer(Flag::nprocPerNode, 1);
            if (auto *e = std::get_if<core::InputError>(&a))
                return *e;
            const auto b = integer(Flag::nnodes, 1);
            if (auto *e = std::get_if<core::InputError>(&b))
                return *e;
            perNode = std::get<int>(a);
            nodes = std::get<int>(b);
            world = 1LL * perNode * nodes;
            where = "torchrun's --nproc_per_node x --nnodes = " + std::to_string(world);
        } else {
            world = m_base.devices();
            where = "the world size";
            m_out.assumptions.push_back("world size not in the file: kept " +
                                        std::to_string(world) +
                                        " devices from the starting scenario; give --devices");
        }
        if (given(Flag::nnodes) && !given(Flag::nprocPerNode))
            m_out.ignored.push_back({"--nnodes", "without --nproc_per_node it gives no count"});
        if (world % group != 0)
            return core::InputError{
                m_options.devices               ? "devices"
                : where.starts_with("torchrun") ? "--nproc_per_node"
                                                : "devices",
                where + " is not a multiple of T x C x K = " + std::to_string(s.tp) + " x " +
                    std::to_string(s.cp) + " x " + std::to_string(s.pp) + " = " +
                    std::to_string(group)};
        if (world / group > 1'000'000'000)
            return core::InputError{"devices", "more than a billion data-parallel replicas"};
        s.dp = int(world / group);
        return std::nullopt;
    }

    std::optional<core::InputError> readBatch(core::Scenario &s)
    {
        const auto b = integer(Flag::microBatch, 1); // arguments.py: --micro-batch-size 1
        if (auto *e = std::get_if<core::InputError>(&b))
            return *e;
        s.microbatchSize = std::get<int>(b);
        const long long perStep = 1LL * s.microbatchSize * s.dp;
        // training: global batch = micro-batch x accumulation steps x D; default b x D.
        const auto g = integer(Flag::globalBatch, int(std::min<long long>(perStep, 1'000'000'000)));
        if (auto *e = std::get_if<core::InputError>(&g))
            return *e;
        const int global = std::get<int>(g);
        if (global % perStep != 0)
            return core::InputError{"--global-batch-size", std::to_string(global) +
                                                               " is not a multiple of "
                                                               "--micro-batch-size x D = " +
                                                               std::to_string(s.microbatchSize) +
                                                               " x " + std::to_string(s.dp) +
                                                               " = " + std::to_string(perStep)};
        s.microbatches = int(global / perStep);
        if (!given(Flag::globalBatch))
            m_out.assumptions.push_back("no --global-batch-size: Megatron-LM's default b x D, "
                                        "one micro-batch per step");
        const auto seq = integer(Flag::seqLength, s.seqLen);
        if (auto *e = std::get_if<core::InputError>(&seq))
            return *e;
        s.seqLen = std::get<int>(seq);
        if (!given(Flag::seqLength))
            m_out.assumptions.push_back("no --seq-length: kept " + std::to_string(s.seqLen) +
                                        " tokens");
        return std::nullopt;
    }

    std::optional<core::InputError> readPipeline(core::Scenario &s)
    {
        s.schedule = core::Schedule::oneFOneB;
        s.virtualStages = 1;
        int v = 1;
        if (const Given *g = given(Flag::vppLayers)) {
            const auto n = integer(Flag::vppLayers, 1);
            if (auto *e = std::get_if<core::InputError>(&n))
                return *e;
            const core::ModelSpec *model = m_out.model ? &*m_out.model : m_presets.model(s.model);
            const int layers = model ? model->layers : 0;
            // arguments.py: virtual stages = layers per pipeline stage / this.
            if (layers == 0 || layers % s.pp != 0 || (layers / s.pp) % std::get<int>(n) != 0)
                return core::InputError{g->name, "must divide the layers of a pipeline stage (" +
                                                     std::to_string(layers) + " / " +
                                                     std::to_string(s.pp) + ")"};
            v = layers / s.pp / std::get<int>(n);
        }
        for (Flag f : {Flag::vppRank, Flag::vppSize})
            if (given(f)) {
                const auto n = integer(f, 1);
                if (auto *e = std::get_if<core::InputError>(&n))
                    return *e;
                v = std::get<int>(n);
            }
        if (const Given *g = given(Flag::ppLayout)) {
            // arguments.py: the layout sets the virtual stages itself, and none of the other
            // ways to set them may come with it; transformer_config.py: nor the uneven
            // first and last stages, nor the ends counted in the split.
            noteRead(Flag::ppLayout);
            for (Flag other : {Flag::vppLayers, Flag::vppRank, Flag::firstStageLayers,
                               Flag::lastStageLayers, Flag::embeddingInSplit, Flag::lossInSplit})
                if (const Given *o = given(other))
                    return core::InputError{g->name, "cannot be used with " + o->name +
                                                         " (Megatron-LM refuses both)"};
            const auto parsed = core::parsePipelineLayout(g->value);
            if (const auto *why = std::get_if<std::string>(&parsed))
                return core::InputError{g->name, *why};
            const std::size_t stages = std::get<std::vector<core::LayoutStage>>(parsed).size();
            if (stages % static_cast<std::size_t>(s.pp) != 0)
                return core::InputError{g->name, std::to_string(stages) +
                                                     " stages do not divide over "
                                                     "--pipeline-model-parallel-size " +
                                                     std::to_string(s.pp)};
            const int detected = static_cast<int>(stages) / s.pp;
            if (given(Flag::vppSize) && v != detected)
                return core::InputError{g->name, std::to_string(detected) +
                                                     " virtual stages a rank, but "
                                                     "--virtual-pipeline-model-parallel-size " +
                                                     std::to_string(v)};
            v = detected;
            s.pipelineLayout = g->value;
        } else if (given(Flag::firstStageLayers) || given(Flag::lastStageLayers)) {
            if (auto e = readUnevenStages(s, v))
                return e;
        }
        if (v > 1) {
            s.schedule = core::Schedule::interleaved;
            s.virtualStages = v;
        }
        return std::nullopt;
    }

    // --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers: those stages
    // take that many layers, the stages between share the rest evenly, and with v chunks a
    // stage each stage's layers split evenly over them (transformer_config.py, "Uneven PP";
    // transformer_layer.py, get_transformer_layer_offset), written as the layout they make.
    std::optional<core::InputError> readUnevenStages(core::Scenario &s, int v)
    {
        const core::ModelSpec *model = m_out.model ? &*m_out.model : m_presets.model(s.model);
        int middleLayers = model ? model->layers : 0;
        int middleStages = s.pp;
        int first = 0, last = 0;
        for (auto [flag, slot] :
             {std::pair{Flag::firstStageLayers, &first}, std::pair{Flag::lastStageLayers, &last}}) {
            const Given *g = given(flag);
            if (!g)
                continue;
            for (Flag ends : {Flag::embeddingInSplit, Flag::lossInSplit})
                if (const Given *o = given(ends))
                    return core::InputError{g->name, "cannot be used with " + o->name +
                                                         " (Megatron-LM refuses both)"};
            const auto n = integer(flag, 1);
            if (auto *e = std::get_if<core::InputError>(&n))
                return *e;
            *slot = std::get<int>(n);
            if (*slot % v != 0)
                return core::InputError{g->name, std::to_string(*slot) +
                                                     " layers do not split into " +
                                                     std::to_string(v) + " virtual stages"};
            middleLayers -= *slot;
            --middleStages;
        }
        const std::string flags = given(Flag::firstStageLayers)
                                      ? given(Flag::firstStageLayers)->name
                                      : given(Flag::lastStageLayers)->name;
        if (!model || !model->hasArchitecture())
            return core::InputError{flags, "needs a model with layers (--num-layers)"};
        if (s.pp < 2 || middleStages < 0 || middleLayers < 0 ||
            (middleLayers > 0) != (middleStages > 0) ||
            (middleStages > 0 && middleLayers % middleStages != 0) ||
            (middleStages > 0 && middleLayers / middleStages % v != 0))
            return core::InputError{
                flags, "leaves " + std::to_string(middleLayers) + " of the " +
                           std::to_string(model->layers) + " layers for " +
                           std::to_string(std::max(middleStages, 0)) +
                           " middle stages, which Megatron-LM needs in equal shares of whole "
                           "chunks"};
        std::vector<int> decoders(static_cast<std::size_t>(s.pp) * static_cast<std::size_t>(v));
        for (int c = 0; c < v; ++c)
            for (int stage = 0; stage < s.pp; ++stage) {
                const bool firstStage = stage == 0 && given(Flag::firstStageLayers);
                const bool lastStage = stage == s.pp - 1 && given(Flag::lastStageLayers);
                decoders[static_cast<std::size_t>(c * s.pp + stage)] =
                    (firstStage  ? first
                     : lastStage ? last
                                 : middleLayers / middleStages) /
                    v;
            }
        s.pipelineLayout = core::pipelineLayoutText(core::layoutOfCounts(decoders, s.mtpLayers));
        return std::nullopt;
    }

    // Megatron-FSDP (docs/user-guide/features/megatron_fsdp.md): --use-megatron-fsdp shards
    // what --data-parallel-sharding-strategy names, optim_grads_params by default
    // (arguments.py): no_shard, optim, optim_grads, optim_grads_params are ZeRO 0 to 3.
    std::optional<core::InputError> readMegatronFsdp(core::Scenario &s)
    {
        const Given *strategy = given(Flag::shardingStrategy);
        if (!has(Flag::megatronFsdp)) {
            if (strategy)
                m_out.ignored.push_back(
                    {strategy->name, "without --use-megatron-fsdp Megatron-LM does not read it"});
            return std::nullopt;
        }
        s.zero = 3;
        if (!strategy)
            return std::nullopt;
        noteRead(Flag::shardingStrategy);
        constexpr std::array<std::string_view, 4> kStrategies{"no_shard", "optim", "optim_grads",
                                                              "optim_grads_params"};
        const auto found = std::find(kStrategies.begin(), kStrategies.end(), strategy->value);
        if (found == kStrategies.end())
            return core::InputError{strategy->name,
                                    "expects no_shard, optim, optim_grads or optim_grads_params, "
                                    "not '" +
                                        strategy->value + "'"};
        s.zero = static_cast<int>(found - kStrategies.begin());
        return std::nullopt;
    }

    // --num-distributed-optimizer-instances N (arguments.py, 1 by default): the distributed
    // optimizer shards over the D x C / N ranks of an instance and the N instances all-reduce
    // their shards' gradients (param_and_grad_buffer.py, start_grad_sync); Megatron-FSDP's HSDP
    // the same (mcore_fsdp_adapter.py, enable_hsdp), its outer ranks replicating unless
    // --outer-dp-sharding-strategy optim also shards the optimizer states over them.
    std::optional<core::InputError> readOptimizerInstances(core::Scenario &s)
    {
        s.zeroReplicas = 1;
        s.deferReplicaReduce = false;
        const auto v = integer(Flag::optimizerInstances, 1);
        if (auto *e = std::get_if<core::InputError>(&v))
            return *e;
        const int n = std::get<int>(v);
        const Given *outer = given(Flag::outerShardingStrategy);
        if (outer && outer->value != "no_shard" && outer->value != "optim")
            return core::InputError{outer->name,
                                    "expects no_shard or optim, not '" + outer->value + "'"};
        const bool hsdp = n > 1 && given(Flag::megatronFsdp);
        if (outer && !hsdp)
            m_out.ignored.push_back({outer->name,
                                     "Megatron-FSDP reads it only with --use-megatron-fsdp and "
                                     "--num-distributed-optimizer-instances above 1"});
        if (n == 1)
            return std::nullopt;
        const std::string flag = given(Flag::optimizerInstances)->name;
        const std::string count = std::to_string(n);
        if (!given(Flag::distributedOptimizer) && !given(Flag::megatronFsdp))
            return core::InputError{flag,
                                    count + " needs --use-distributed-optimizer: Megatron-core "
                                            "refuses it without (distributed_data_parallel.py, "
                                            "\"Partial DistOpt cannot be used without DistOpt\")"};
        // parallel_state.py: the D x C ranks, and the experts' data-parallel group, split into N
        // instances of consecutive ranks, the C ranks of a replica next to each other.
        const long long ranks = 1LL * s.dp * s.cp;
        if (ranks % n != 0)
            return core::InputError{flag, count +
                                              " does not divide D x C = " + std::to_string(ranks) +
                                              " (Megatron-core asserts it, parallel_state.py)"};
        if (s.dp % n != 0)
            return core::InputError{
                flag, count + " does not divide D = " + std::to_string(s.dp) +
                          ": its instances would split a replica's C = " + std::to_string(s.cp) +
                          " context-parallel ranks, which Parascope's "
                          "zero_replicas keeps together"};
        const core::ModelSpec *model = m_out.model ? &*m_out.model : m_presets.model(s.model);
        if (model && model->hasExperts() && s.expertDp() % n != 0)
            return core::InputError{flag, count +
                                              " does not divide the experts' data-parallel group "
                                              "of " +
                                              std::to_string(s.expertDp()) +
                                              " devices (Megatron-core asserts it, "
                                              "parallel_state.py)"};
        if (outer && hsdp) {
            noteRead(Flag::outerShardingStrategy);
            // param_and_grad_buffer.py: "Optimizer fully-sharded HFSDP is only supported with
            // full-sharding on DP-Shard".
            if (outer->value == "optim" && s.zero != 3)
                return core::InputError{outer->name,
                                        "optim needs --data-parallel-sharding-strategy "
                                        "optim_grads_params: Megatron-FSDP refuses it otherwise"};
            if (outer->value == "optim")
                m_out.assumptions.push_back(
                    outer->name +
                    " optim (HFSDP): Megatron-FSDP also shards the optimizer states over the " +
                    std::to_string(n) +
                    " instances; Parascope counts them sharded over one instance's D x C / " +
                    std::to_string(n) + " ranks, as with no_shard");
        }
        if (s.zero == 0) {
            m_out.assumptions.push_back(flag + " " + count +
                                        " under Megatron-FSDP's no_shard: nothing is sharded and "
                                        "every replica all-reduces with every other; read as "
                                        "zero_replicas 1");
            return std::nullopt;
        }
        s.zeroReplicas = n;
        // Megatron-FSDP reduce-scatters every micro-batch at optim_grads and above but
        // all-reduces across the instances on the last only (megatron_fsdp.py:
        // outer_fsdp_group_grad_reduce = use_hybrid_fsdp and is_last_microbatch).
        s.deferReplicaReduce = n > 1 && s.zero >= 2;
        return std::nullopt;
    }

    // model_parallel_config.py: cross_entropy_loss_fusion (off by default) with
    // cross_entropy_fusion_impl native (the default) or te.
    std::optional<core::InputError> readLossFusion(core::Scenario &s)
    {
        const bool fused = has(Flag::lossFusion);
        const Given *impl = given(Flag::lossFusionImpl);
        bool te = false;
        if (impl) {
            noteRead(Flag::lossFusionImpl);
            if (impl->value == "te")
                te = true;
            else if (impl->value != "native")
                return core::InputError{impl->name,
                                        "expects native or te, not '" + impl->value + "'"};
            if (!fused)
                m_out.assumptions.push_back(impl->name + " " + impl->value +
                                            " without --cross-entropy-loss-fusion: no effect, "
                                            "the loss runs unfused");
        }
        s.lossFusion = !fused ? core::LossFusion::none
                       : te   ? core::LossFusion::te
                              : core::LossFusion::native;
        return std::nullopt;
    }

    // Adam's moments: --exp-avg-dtype and --exp-avg-sq-dtype (fp32, fp16, bf16 or fp8; fp32 by
    // default) take effect with --use-precision-aware-optimizer only (arguments.py: "when
    // enabling precision-aware-optimizer"). optimizer_moments says fp32 or bf16 for both;
    // other mixes read as the one that counts more memory, with an assumption.
    std::optional<core::InputError> readOptimizerMoments(core::Scenario &s)
    {
        s.optimizerMoments = core::Precision::fp32;
        const bool aware = has(Flag::precisionAwareOptimizer);
        int bytes[2] = {4, 4};
        const Flag flags[2] = {Flag::expAvgDtype, Flag::expAvgSqDtype};
        for (int i = 0; i < 2; ++i) {
            const Given *g = given(flags[i]);
            if (!g)
                continue;
            if (g->value == "fp32")
                bytes[i] = 4;
            else if (g->value == "bf16" || g->value == "fp16")
                bytes[i] = 2;
            else if (g->value == "fp8")
                bytes[i] = 1;
            else
                return core::InputError{g->name,
                                        "expects fp32, fp16, bf16 or fp8, not '" + g->value + "'"};
            if (!aware) {
                m_out.assumptions.push_back(
                    g->name + " " + g->value +
                    " without --use-precision-aware-optimizer: Megatron-LM keeps FP32 moments");
                bytes[i] = 4;
                continue;
            }
            noteRead(flags[i]);
        }
        if (bytes[0] == 4 || bytes[1] == 4) {
            if (bytes[0] != bytes[1])
                m_out.assumptions.push_back("one moment in FP32 and one narrower: read as "
                                            "optimizer_moments=fp32, 2 bytes a parameter more "
                                            "than the run keeps");
            return std::nullopt;
        }
        s.optimizerMoments = core::Precision::bf16;
        if (bytes[0] == 1 || bytes[1] == 1)
            m_out.assumptions.push_back("FP8 moments: read as optimizer_moments=bf16, up to 2 "
                                        "bytes a parameter more than the run keeps");
        return std::nullopt;
    }

    // transformer_config.py, fp8_recipe: delayed (the default), tensorwise (current scaling),
    // mxfp8 and blockwise (scales per block), custom.
    std::optional<core::InputError> readFp8Recipe(core::Scenario &s)
    {
        s.fp8Scaling = core::Fp8Scaling::delayed;
        const Given *g = given(Flag::fp8Recipe);
        if (!g)
            return std::nullopt;
        noteRead(Flag::fp8Recipe);
        if (g->value == "delayed")
            s.fp8Scaling = core::Fp8Scaling::delayed;
        else if (g->value == "tensorwise")
            s.fp8Scaling = core::Fp8Scaling::current;
        else if (g->value == "mxfp8" || g->value == "blockwise") {
            s.fp8Scaling = core::Fp8Scaling::block;
            m_mxfp8 = g->value == "mxfp8";
        } else if (g->value == "custom")
            m_out.assumptions.push_back("--fp8-recipe custom: timed as delayed scaling, one read "
                                        "of each tensor per cast");
        else
            return core::InputError{g->name, "expects delayed, tensorwise, mxfp8, blockwise or "
                                             "custom, not '" +
                                                 g->value + "'"};
        return std::nullopt;
    }

    std::optional<core::InputError> readRecompute(core::Scenario &s)
    {
        // transformer_config.py: recompute_granularity None unless given;
        // --recompute-activations means selective (arguments.py).
        s.recompute = core::Recompute::none;
        if (has(Flag::recomputeActivations))
            s.recompute = core::Recompute::selective;
        if (const Given *g = given(Flag::recomputeGranularity)) {
            noteRead(Flag::recomputeGranularity);
            const auto r = core::parseEnum<core::Recompute>(g->value);
            if (!r || (*r != core::Recompute::full && *r != core::Recompute::selective))
                return core::InputError{g->name,
                                        "expects full or selective, not '" + g->value + "'"};
            s.recompute = *r;
        }
        // --recompute-modules (arguments.py, nargs='*', default core_attn): what selective
        // recomputation reruns (docs/activations.md, "Recomputed modules"). Megatron-core's
        // modules of other attention variants (gdn_*, gdp_*, mhc) are not Parascope's.
        s.recomputeModules = "core_attn";
        if (const Given *g = given(Flag::recomputeModules)) {
            noteRead(Flag::recomputeModules);
            std::string kept, dropped;
            std::size_t at = 0;
            while (at < g->value.size()) {
                const std::size_t end = g->value.find(' ', at);
                const std::string word =
                    g->value.substr(at, end == std::string::npos ? std::string::npos : end - at);
                at = end == std::string::npos ? g->value.size() : end + 1;
                if (word.empty())
                    continue;
                const bool other =
                    word.starts_with("gdn_") || word.starts_with("gdp_") || word == "mhc";
                std::string &into = other ? dropped : kept;
                into += (into.empty() ? "" : " ") + word;
            }
            if (const auto parsed = core::parseRecomputeModules(kept);
                const auto *why = std::get_if<std::string>(&parsed))
                return core::InputError{g->name, *why};
            s.recomputeModules = kept;
            if (!dropped.empty())
                m_out.assumptions.push_back("--recompute-modules " + dropped +
                                            ": modules of attention variants Parascope does not "
                                            "model; left out");
        }
        const Given *method = given(Flag::recomputeMethod);
        const Given *layers = given(Flag::recomputeNumLayers);
        if (method)
            noteRead(Flag::recomputeMethod);
        if (layers)
            noteRead(Flag::recomputeNumLayers);
        // The block method reruns the first N layers of each chunk (recompute_layers).
        if (s.recompute == core::Recompute::full && method && method->value == "block" && layers) {
            const auto n = parseInteger(layers->value);
            if (!n || *n < 0 || *n > 1'000'000)
                return core::InputError{layers->name,
                                        "'" + layers->value + "' is not a count of layers"};
            s.recomputeLayers = int(*n);
            return std::nullopt;
        }
        if (s.recompute == core::Recompute::full &&
            !(method && method->value == "uniform" && (!layers || layers->value == "1")))
            m_out.assumptions.push_back(
                "--recompute-granularity full" +
                (method ? " with --recompute-method " + method->value : std::string()) +
                (layers ? " --recompute-num-layers " + layers->value : std::string()) +
                ": Parascope recomputes every layer on its own (uniform, 1 layer per chunk)");
        return std::nullopt;
    }

    const core::Scenario &m_base;
    const core::Presets &m_presets;
    const ImportOptions &m_options;
    ImportedConfig &m_out;
    bool m_mxfp8 = false; // --fp8-recipe mxfp8, which --fp8-output-proj needs
    std::map<Flag, Given> m_given;
    int m_tp = 1;

public:
    void setTp()
    {
        const Given *g = given(Flag::tp);
        if (g)
            if (const auto v = parseInteger(g->value); v && *v > 0 && *v < 1'000'000)
                m_tp = int(*v);
    }
};

std::optional<core::InputError> readMegatron(const std::string &text, const core::Scenario &base,
                                             const core::Presets &presets,
                                             const ImportOptions &options, ImportedConfig &out);

} // namespace megatron_detail

std::optional<core::InputError> importMegatron(const QByteArray &content,
                                               const core::Scenario &base,
                                               const core::Presets &presets,
                                               const ImportOptions &options, ImportedConfig &out)
{
    using namespace megatron_detail;
    const std::string text = content.toStdString();
    try {
        return readMegatron(text, base, presets, options, out);
    } catch (const std::exception &e) {
        return core::InputError{{}, std::string("cannot read these arguments: ") + e.what()};
    }
}

namespace megatron_detail {

std::optional<core::InputError> readMegatron(const std::string &text, const core::Scenario &base,
                                             const core::Presets &presets,
                                             const ImportOptions &options, ImportedConfig &out)
{
    auto lexed = Lexer(text).run();
    if (auto *error = std::get_if<ShellError>(&lexed))
        return core::InputError{error->key, error->message};
    Shell shell;
    shell.run(std::get<std::vector<Token>>(lexed));
    if (shell.megatronArgs.empty())
        return core::InputError{{},
                                "no Megatron-LM arguments: expected a torchrun or python "
                                "command running a pretrain script, or a list of --flags"};
    out.assumptions = shell.assumptions;
    Reader reader(base, presets, options, out);
    return reader.read(shell.megatronArgs);
}

// Megatron-LM's current arguments.py lists fp8_dot_product_attention among the
// TransformerConfig fields that have no argument, so a launch line cannot ask for FP8
// attention; earlier releases took --fp8-dot-product-attention, which the import reads.
void noteFp8Attention(const core::Scenario &s, std::vector<std::string> &notes)
{
    if (s.fp8Attention)
        notes.push_back("fp8_attention=true: Megatron-LM's current arguments have no flag for "
                        "TransformerConfig.fp8_dot_product_attention (earlier releases took "
                        "--fp8-dot-product-attention); set it in the model's config");
    // The same list holds disable_parameter_transpose_cache, which turns Transformer Engine's
    // weight cache off (Megatron-Bridge's and NeMo's recipes set it).
    const bool quantized =
        s.precision == core::Precision::nvfp4 || s.precision == core::Precision::fp8;
    if (!s.fp8WeightCache && quantized && s.mode == core::Mode::training)
        notes.push_back("fp8_weight_cache=false: Megatron-LM's arguments have no flag for "
                        "TransformerConfig.disable_parameter_transpose_cache; set it in the "
                        "model's config");
}

} // namespace megatron_detail

std::string emitMegatron(const core::Scenario &s, const core::ModelSpec &model)
{
    using core::Precision;
    std::vector<std::string> notes; // what Megatron-LM has no setting for
    std::vector<std::pair<std::string, std::string>> args;
    const auto flag = [&](std::string name, std::string value = {}) {
        args.emplace_back(std::move(name), std::move(value));
    };
    const auto number = [](auto v) { return std::to_string(v); };
    // The LM head in FP8 (fp8_lm_head): Megatron-core's fp8_output_proj, MXFP8 only.
    const bool lmHeadInFp8 = s.fp8LmHead && s.mode == core::Mode::training &&
                             s.precision == Precision::fp8 &&
                             s.fp8Scaling == core::Fp8Scaling::block;

    flag("--tensor-model-parallel-size", number(s.tp));
    flag("--pipeline-model-parallel-size", number(s.pp));
    if (s.cp > 1 || s.cpExchange != core::CpExchange::ring) {
        flag("--context-parallel-size", number(s.cp));
        flag("--cp-comm-type", s.cpExchange == core::CpExchange::ring        ? "p2p"
                               : s.cpExchange == core::CpExchange::allgather ? "allgather"
                                                                             : "a2a");
    }
    if (s.ep > 1)
        flag("--expert-model-parallel-size", number(s.ep));
    if (s.expertTp > 0)
        flag("--expert-tensor-parallel-size", number(s.expertTp));
    // A layout sets the virtual stages itself (arguments.py refuses it beside the flags
    // below); quoted, for its | and parentheses.
    // Interleaved parts that differ by a layer (the torchtitan profile's split) have no
    // Megatron-LM flags but a layout: written as the one Parascope runs.
    // DeepSpeed's partition by parameters, written out as the layout it makes.
    std::string layout = s.pipelineLayout;
    if (layout == core::kParametersLayout) {
        const auto stages = core::pipelineLayoutStages(s, model);
        layout = stages ? core::pipelineLayoutText(*stages) : std::string();
    }
    if (layout.empty() && s.framework == core::Framework::torchtitan && s.pp > 1 &&
        s.schedule == core::Schedule::interleaved && s.virtualStages > 1 &&
        model.hasArchitecture() &&
        core::countedLayers(model.layers, s.pp, s.endsInPipelineSplit) % (s.pp * s.virtualStages) !=
            0) {
        std::vector<int> decoders;
        for (const core::LayerRun &run : core::virtualStageLayers(s, model))
            decoders.push_back(run.count);
        layout = core::pipelineLayoutText(
            core::layoutOfCounts(decoders, s.mode == core::Mode::training ? s.mtpLayers : 0));
    }
    // DualPipeV's layout is of its V's parts, which Megatron-LM's 1F1B does not run.
    if (s.schedule == core::Schedule::dualPipeV && !layout.empty()) {
        notes.push_back("pipeline_layout " + layout +
                        ": DualPipeV's parts, two a stage in a V; not written");
        layout.clear();
    }
    if (!layout.empty() && s.pp > 1) {
        flag("--pipeline-model-parallel-layout", "'" + layout + "'");
    } else if (s.pp > 1 && s.schedule == core::Schedule::interleaved && s.virtualStages > 1) {
        const int perStage = model.layers / s.pp;
        if (model.layers % s.pp == 0 && perStage % s.virtualStages == 0)
            flag("--num-layers-per-virtual-pipeline-stage", number(perStage / s.virtualStages));
        else
            flag("--num-virtual-stages-per-pipeline-rank", number(s.virtualStages));
    } else if (s.pp > 1 && s.schedule == core::Schedule::dualPipeV) {
        notes.push_back("schedule=dualpipev: Megatron-LM has no DualPipeV (two chunks a stage in "
                        "a V, both ends of the model on stage 0); written as 1F1B, one chunk a "
                        "stage and the LM head on the last");
    } else if (s.pp > 1 && s.schedule == core::Schedule::dualPipe) {
        notes.push_back("schedule=dualpipe: Megatron-LM has no DualPipe (half the micro-batches "
                        "entering at each end, two copies of the parameters a device); written "
                        "as 1F1B, one stage a device and the ends on the first and last");
    } else if (s.pp > 1 && s.schedule != core::Schedule::oneFOneB) {
        notes.push_back(
            "schedule=" + std::string(core::toString(s.schedule)) +
            (s.schedule == core::Schedule::interleaved ? " with virtual_stages=1" : "") +
            ": Megatron-LM runs 1F1B or interleaved 1F1B; written as 1F1B");
    }
    if (s.rankOrder == core::RankOrder::pipelineInner)
        flag("--use-tp-pp-dp-mapping");
    if (s.endsInPipelineSplit && s.pp > 1 && layout.empty()) {
        flag("--account-for-embedding-in-pipeline-split");
        flag("--account-for-loss-in-pipeline-split");
    }
    flag("--micro-batch-size", number(s.microbatchSize));
    flag("--global-batch-size",
         number(static_cast<long long>(s.microbatchSize) * s.microbatches * s.dp));
    flag("--seq-length", number(s.seqLen));
    if (s.recompute == core::Recompute::op) {
        flag("--recompute-granularity", "selective");
        notes.push_back("recompute=op: Megatron-LM has no per-op checkpointing; written as its "
                        "selective recomputation of the attention core");
    } else if (s.recompute == core::Recompute::selective && s.recomputeModules.empty()) {
        notes.push_back("recompute=selective with recompute_modules=none reruns nothing: "
                        "written without recomputation");
    } else if (s.recompute != core::Recompute::none) {
        flag("--recompute-granularity", std::string(core::toString(s.recompute)));
        if (s.recompute == core::Recompute::full && s.recomputeLayers > 0) {
            flag("--recompute-method", "block");
            flag("--recompute-num-layers", number(s.recomputeLayers));
        } else if (s.recompute == core::Recompute::full) {
            flag("--recompute-method", "uniform");
            flag("--recompute-num-layers", "1");
        }
        // The modules as a list of words; core_attn alone is Megatron-LM's default.
        if (s.recompute == core::Recompute::selective && s.recomputeModules != "core_attn") {
            std::string words = s.recomputeModules;
            std::replace(words.begin(), words.end(), ',', ' ');
            flag("--recompute-modules", words);
        }
    }
    if (s.sequenceParallel && s.tp > 1)
        flag("--sequence-parallel");
    else if (s.sequenceParallel)
        notes.push_back("sequence_parallel=true with T = 1: Megatron-LM turns it off");
    if (s.tpOverlap && s.sequenceParallel && s.tp > 1) {
        flag("--tp-comm-overlap");
        // megatron/training/arguments.py lists it among the config fields with no flag.
        if (!s.tpOverlapQkv)
            notes.push_back("tp_overlap_qkv=false: Megatron-core's tp_comm_overlap_disable_qkv "
                            "has no flag; set it in the model's TransformerConfig");
    } else if (s.tpOverlap)
        notes.push_back("tp_overlap=true: --tp-comm-overlap needs sequence parallelism and T > 1");
    // Megatron-core's MoE README: batch-level overlap of the all-to-all is the two flags
    // together (megatron/core/transformer/moe/README.md).
    if (s.epOverlap) {
        flag("--overlap-moe-expert-parallel-comm");
        flag("--delay-wgrad-compute");
    }
    // The dispatcher Parascope times: Megatron-LM's default is the all-gather one.
    if (s.ep > 1) {
        if (s.epDispatcher == core::EpDispatcher::flex) {
            flag("--moe-token-dispatcher-type", "flex");
            // Megatron-core refuses padding under DeepEP, not under HybridEP.
            flag("--moe-flex-dispatcher-backend",
                 s.padToCapacity && s.expertCapacityFactor ? "hybridep" : "deepep");
        } else {
            flag("--moe-token-dispatcher-type", "alltoall");
        }
    }
    // A graph of the whole step needs the NaN check off (arguments.py: "--no-check-for-nan-in-
    // loss-and-grad should be set with --cuda-graph-impl=full_iteration for training").
    if (s.fullCudaGraph && s.mode == core::Mode::training) {
        flag("--cuda-graph-impl", "full_iteration");
        flag("--no-check-for-nan-in-loss-and-grad");
    }
    if (s.mtpLayers > 0 && s.mode == core::Mode::training)
        flag("--mtp-num-layers", number(s.mtpLayers));
    // Transformer Engine's CPU offloading of the first N layers' activations (transformer_config
    // .py: cpu_offloading_num_layers; docs/activations.md, "Offloaded layers").
    if (s.offloadLayers > 0 && s.mode == core::Mode::training)
        flag("--cpu-offloading-num-layers", number(s.offloadLayers));
    // The experts' capacity (docs/experts.md, "Capacity"); dropless writes neither.
    if (s.expertCapacityFactor) {
        flag("--moe-expert-capacity-factor", core::fieldText(s, "expert_capacity_factor"));
        if (s.padToCapacity)
            flag("--moe-pad-expert-input-to-capacity");
    }
    if (s.zero == 1)
        flag("--use-distributed-optimizer");
    // ZeRO-2 and ZeRO-3 are Megatron-FSDP's optim_grads and optim_grads_params
    // (docs/user-guide/features/megatron_fsdp.md).
    if (s.zero >= 2) {
        flag("--use-megatron-fsdp");
        flag("--data-parallel-sharding-strategy",
             s.zero == 2 ? "optim_grads" : "optim_grads_params");
    }
    // Hybrid sharding: distributed-optimizer instances, or Megatron-FSDP's HSDP over them.
    if (s.zeroReplicas > 1 && s.zero >= 1 && s.dp % s.zeroReplicas == 0) {
        flag("--num-distributed-optimizer-instances", number(s.zeroReplicas));
        if (s.zero >= 2 && !s.deferReplicaReduce)
            notes.push_back("defer_replica_reduce=false: Megatron-FSDP all-reduces across the "
                            "instances once, after the last micro-batch (megatron_fsdp.py, "
                            "outer_fsdp_group_grad_reduce); it has no setting for every "
                            "micro-batch");
    } else if (s.zeroReplicas > 1 && s.zero >= 1)
        notes.push_back("zero_replicas=" + std::to_string(s.zeroReplicas) +
                        " does not divide D = " + std::to_string(s.dp) + ": written without");
    else if (s.zeroReplicas > 1)
        notes.push_back("zero_replicas=" + std::to_string(s.zeroReplicas) +
                        " without ZeRO: nothing to shard; Megatron-LM takes "
                        "--num-distributed-optimizer-instances with the distributed optimizer "
                        "only");
    if (!s.dpOverlap || *s.dpOverlap > 0) {
        flag("--overlap-grad-reduce");
        if (s.zero >= 1 && s.overlapParamGather)
            flag("--overlap-param-gather");
        if (s.dpBucketParams)
            flag("--ddp-bucket-size",
                 number(static_cast<long long>(std::llround(*s.dpBucketParams))));
        if (s.dpOverlap)
            notes.push_back("dp_overlap=" + core::fieldText(s, "dp_overlap") +
                            ": Megatron-LM overlaps as much as fits (dp_overlap=auto)");
    }
    switch (s.precision) {
    case Precision::fp32:
        break;
    case Precision::fp16:
        flag("--fp16");
        break;
    case Precision::fp8:
        flag("--bf16");
        flag("--fp8-format", "hybrid");
        if (s.fp8Params && s.mode == core::Mode::training)
            flag("--fp8-param-gather");
        // transformer_config.py: delayed is the default recipe; tensorwise is current scaling;
        // blockwise scales blocks on Hopper (mxfp8 is Blackwell's), and fp8_output_proj takes
        // mxfp8 only.
        if (s.fp8Scaling == core::Fp8Scaling::current)
            flag("--fp8-recipe", "tensorwise");
        else if (s.fp8Scaling == core::Fp8Scaling::block)
            flag("--fp8-recipe", lmHeadInFp8 ? "mxfp8" : "blockwise");
        if (lmHeadInFp8)
            flag("--fp8-output-proj");
        megatron_detail::noteFp8Attention(s, notes);
        break;
    case Precision::nvfp4:
        // transformer_config.py: fp4 e2m1 with the default fp4_recipe, nvfp4.
        flag("--bf16");
        flag("--fp4-format", "e2m1");
        megatron_detail::noteFp8Attention(s, notes);
        break;
    case Precision::bf16:
        flag("--bf16");
        break;
    case Precision::int8:
    case Precision::int4:
    case Precision::q8_0:
    case Precision::q4_0:
        flag("--bf16");
        notes.push_back("precision=" + std::string(core::toString(s.precision)) +
                        ": not a training format; written as --bf16");
        break;
    }
    if (s.gradPrecision == Precision::bf16)
        flag("--grad-reduce-in-bf16");
    if (s.mode == core::Mode::training && s.optimizerMoments == Precision::bf16) {
        flag("--use-precision-aware-optimizer");
        flag("--exp-avg-dtype", "bf16");
        flag("--exp-avg-sq-dtype", "bf16");
    }
    if (!s.fusedGradAccumulation)
        flag("--no-gradient-accumulation-fusion");
    if (s.lossFusion != core::LossFusion::none) {
        flag("--cross-entropy-loss-fusion");
        if (s.lossFusion == core::LossFusion::te) {
            flag("--cross-entropy-fusion-impl", "te");
            // arguments.py refuses it at launch ("disabled due to stability issues");
            // Megatron-Bridge sets it in the model config.
            notes.push_back("loss_fusion=te: current Megatron-LM refuses "
                            "--cross-entropy-fusion-impl te at launch; Megatron-Bridge's recipes "
                            "set cross_entropy_fusion_impl in the model config");
        }
    }
    if (!s.fusedSwiglu)
        flag("--no-bias-swiglu-fusion");
    // Megatron-core refuses it outside SwiGLU and keeps the FP8 copy in its fused kernel only
    // (transformer_config.py, mlp.py).
    if (s.fp8ActivationInput && s.mode == core::Mode::training && model.gatedMlp && s.fusedSwiglu)
        flag("--activation-func-fp8-input-store");
    if (s.attention == core::Attention::eager)
        flag("--attention-backend", "unfused");
    else if (s.attention == core::Attention::flash2)
        flag("--attention-backend", "flash");
    else if (s.attention == core::Attention::flash3) {
        flag("--attention-backend", "flash");
        notes.push_back("attention=flash3: Transformer Engine's FlashAttention backend runs "
                        "FlashAttention-3 when it is installed");
    }
    if (s.cacheOutputs)
        notes.push_back("cache_outputs=true: Megatron-LM's last stage keeps no outputs");
    if (s.packedExampleTokens > 0 && s.mode == core::Mode::training)
        notes.push_back("packed_example_tokens=" + std::to_string(s.packedExampleTokens) +
                        ": packed sequences are the dataset's (Megatron-Bridge's "
                        "packed_sequence_specs, attention in Transformer Engine's THD format), "
                        "not a pretrain_gpt.py flag");
    // Megatron-Bridge's PEFT (src/megatron/bridge/peft/lora.py) names the projections as
    // lora_modules does.
    if (s.loraRank > 0 && s.mode == core::Mode::training)
        notes.push_back(
            "lora_rank=" + std::to_string(s.loraRank) +
            ": Megatron-LM has no LoRA; Megatron-Bridge's PEFT has it, "
            "peft=LoRA(dim=" +
            std::to_string(s.loraRank) + ", target_modules=" + pythonWordList(s.loraModules) +
            (s.loraA2a ? ", a2a_experimental=True" : "") +
            (s.loraDropout > 0 ? ", dropout=" + core::plainNumber(s.loraDropout) : "") +
            (s.loraDropout > 0 && s.loraDropoutPosition == core::LoraDropoutPosition::post
                 ? ", dropout_position='post'"
                 : "") +
            ") (a recipe's peft_scheme='lora'); these arguments train every weight");
    // Megatron-LM's --moe-router-force-load-balancing gives every rank its even share, for
    // benchmarks; nothing sets an imbalance.
    if (const std::string note = rankLoadNote(s, model); !note.empty())
        notes.push_back(note);
    // MLPerf's NVFP4 LoRA runs quantize the frozen weights in place before training
    // (mlcommons/training_results_v5.1, NVIDIA llama2_70b_lora custom_callbacks.py,
    // _pre_quantize_model), which no Megatron-LM flag asks for.
    if (s.loraRank > 0 && s.mode == core::Mode::training && s.precision == core::Precision::nvfp4 &&
        s.fp8Params)
        notes.push_back("fp8_params=true: the frozen weights held in NVFP4, quantized once before "
                        "training as MLPerf's NVFP4 LoRA runs do (their custom_callbacks.py, "
                        "_pre_quantize_model); no Megatron-LM flag does it");
    if (s.zeroBuffers != core::ZeroBuffers::none)
        notes.push_back("zero_buffers=" + std::string(core::toString(s.zeroBuffers)) +
                        ": the distributed optimizer's buckets are views of its gradient buffer");
    if (s.mode == core::Mode::inference)
        notes.push_back("mode=inference: pretrain_gpt.py trains; the training layout is written");
    if (!s.fusedElementwise)
        notes.push_back("fused_elementwise=false: Megatron-LM runs Transformer Engine's fused "
                        "norms and RoPE");
    if (!s.saveQuantizedInputs && s.mode == core::Mode::training &&
        (s.precision == Precision::fp8 || s.precision == Precision::nvfp4))
        notes.push_back("save_quantized_inputs=false: Transformer Engine's projections keep "
                        "their cast inputs for the weight gradient");

    // The model, so that one that is not a preset comes back whole.
    flag("--num-layers", number(model.layers));
    flag("--hidden-size", number(model.hidden));
    flag("--ffn-hidden-size", number(model.ffnHidden));
    flag("--num-attention-heads", number(model.heads));
    if (model.latentAttention()) {
        flag("--multi-latent-attention");
        flag("--kv-lora-rank", number(model.kvLoraRank));
        if (model.qLoraRank > 0)
            flag("--q-lora-rank", number(model.qLoraRank));
        flag("--qk-head-dim", number(model.headDimOverride));
        flag("--qk-pos-emb-head-dim", number(model.ropeHeadDim));
        flag("--v-head-dim", number(model.valueHeadDim()));
    } else {
        if (model.kvHeads != model.heads) {
            flag("--group-query-attention");
            flag("--num-query-groups", number(model.kvHeads));
        }
        if (model.headDimOverride > 0)
            flag("--kv-channels", number(model.headDimOverride));
    }
    if (model.qkNorm)
        flag("--qk-layernorm");
    if (model.gatedMlp)
        flag("--swiglu");
    if (!model.tiedEmbeddings)
        flag("--untie-embeddings-and-output-weights");
    if (!model.bias)
        flag("--disable-bias-linear");
    if (model.qkvBias && !model.bias && !model.attentionBias)
        flag("--add-qkv-bias");
    flag("--normalization", model.bias ? "LayerNorm" : "RMSNorm");
    if (model.learnedPositions > 0) {
        flag("--position-embedding-type", "learned_absolute");
        flag("--max-position-embeddings", number(model.learnedPositions));
    } else {
        flag("--position-embedding-type", "rope");
        if (model.contextWindow > 0)
            flag("--max-position-embeddings", number(model.contextWindow));
    }
    if (!model.dropout) {
        flag("--attention-dropout", "0.0");
        flag("--hidden-dropout", "0.0");
    }
    flag("--vocab-size", number(model.vocab));
    if (model.hasExperts()) {
        flag("--num-experts", number(model.experts));
        flag("--moe-router-topk", number(model.expertsPerToken));
        flag("--moe-ffn-hidden-size", number(model.expertFfnHidden));
        if (model.sharedExperts > 0)
            flag("--moe-shared-expert-intermediate-size",
                 number(model.sharedExperts * model.expertFfnHidden));
        if (model.denseLayers > 0 || model.moeLayerPeriod > 1) {
            std::string pattern;
            if (model.moeLayerPeriod <= 1) {
                pattern = "([0]*" + number(model.denseLayers) + "+[1]*" +
                          number(model.layers - model.denseLayers) + ")";
            } else {
                for (int i = 0; i < model.layers; ++i)
                    pattern += (i == 0 ? "[" : ",") + number(core::isMoeLayer(model, i) ? 1 : 0);
                pattern += "]";
            }
            flag("--moe-layer-freq", "'" + pattern + "'");
        }
        if (model.routerBias)
            flag("--moe-router-enable-expert-bias");
        if (model.routerGroups > 0) {
            flag("--moe-router-num-groups", number(model.routerGroups));
            flag("--moe-router-group-topk", number(model.routerGroupLimit));
        }
    }
    if (model.slidingWindow > 0) {
        // A causal window of w tokens: w - 1 before each query, none after.
        flag("--window-size", number(model.slidingWindow - 1) + ",0");
        if (model.fullAttentionPeriod > 0)
            flag("--window-attn-skip-freq", number(model.fullAttentionPeriod));
    }
    if (model.attentionBias)
        notes.push_back("the model's attention biases (attention_bias): no Megatron-LM flag "
                        "for biases on the attention projections alone");
    if (model.attentionSinks)
        notes.push_back("the model's attention sinks: no Megatron-LM flag");
    if (model.expertBias)
        notes.push_back("the model's expert biases (expert_bias): no Megatron-LM flag");

    // torchrun's world: whole nodes of up to 8 devices (the DGX/HGX node), or the inline
    // device's node size.
    const int world = s.devices();
    int perNode = s.customDevice ? std::max(1, s.customDevice->devicesPerNode) : 8;
    while (world % perNode != 0)
        --perNode;
    std::string out = "#!/bin/bash\n# Parascope: " + model.id + " on " + number(world) + " x " +
                      s.device + ", T=" + number(s.tp) + " C=" + number(s.cp) +
                      " K=" + number(s.pp) + " D=" + number(s.dp) + "\n";
    if (!notes.empty()) {
        out += "# Megatron-LM has no setting for:\n";
        for (const std::string &note : notes)
            out += "#   " + note + "\n";
    }
    out += "# Add your data and tokenizer arguments (--data-path, --tokenizer-type, ...).\n";
    out += "# --nproc_per_node is one host's GPUs: " + number(perNode) +
           " assumed; keep --nproc_per_node x --nnodes = " + number(world) + ".\n";
    out += "torchrun --nproc_per_node " + number(perNode) + " --nnodes " + number(world / perNode) +
           " pretrain_gpt.py \\\n";
    for (std::size_t i = 0; i < args.size(); ++i)
        out += "    " + args[i].first + (args[i].second.empty() ? "" : " " + args[i].second) +
               (i + 1 < args.size() ? " \\\n" : "\n");
    return out;
}

} // namespace io
