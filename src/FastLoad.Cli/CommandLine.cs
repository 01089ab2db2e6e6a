using System.CommandLine;
using System.CommandLine.Parsing;

namespace FastLoad.Cli;

/// <summary>
/// The tool's rules for what a command line may hold, the same for every command: a path it names must exist, and a
/// token that starts with '-' is an option (after <c>--</c>, a path).
/// </summary>
internal static class CommandLine
{
    private const string MissingPrefix = "no such file or folder: ";

    /// <summary>Makes the parse fail, with one line naming it, when the path does not exist.</summary>
    public static Argument<string> MustExist(this Argument<string> argument)
    {
        argument.Validators.Add(static result => ReportMissing(result, [result.GetValueOrDefault<string>()]));
        return argument;
    }

    /// <summary>Makes the parse fail, with one line for each, when any of the paths does not exist.</summary>
    public static Argument<string[]> MustExist(this Argument<string[]> argument)
    {
        argument.Validators.Add(static result => ReportMissing(result, result.GetValueOrDefault<string[]>() ?? []));
        return argument;
    }

    /// <summary>Whether every error is a path that does not exist (the line says all there is to say).</summary>
    public static bool AreAllMissingPaths(IEnumerable<string> errors) =>
        errors.All(error => error.StartsWith(MissingPrefix, StringComparison.Ordinal));

    /// <summary>
    /// The errors to print: the tokens that look like options but were taken as arguments when there are any (the
    /// rest of the errors follow from them), otherwise the parse's own.
    /// </summary>
    public static IReadOnlyList<string> Errors(ParseResult parse)
    {
        List<string> options = [.. OptionsTakenAsArguments(parse).Select(token => $"Unrecognized command or argument '{token}'.")];
        return options.Count > 0 ? options : [.. parse.Errors.Select(error => error.Message)];
    }

    /// <summary>
    /// The tokens a command's arguments took that look like options (a mistyped <c>--recursiv</c> would otherwise be
    /// taken as a path), unless they came after <c>--</c>.
    /// </summary>
    private static IEnumerable<string> OptionsTakenAsArguments(ParseResult parse)
    {
        int doubleDash = IndexOf(parse.Tokens, token => token.Type == TokenType.DoubleDash);
        return parse.CommandResult.Children
            .OfType<ArgumentResult>()
            .SelectMany(argument => argument.Tokens)
            .Where(token => token.Value.Length > 1 && token.Value[0] == '-'
                && (doubleDash < 0 || IndexOf(parse.Tokens, candidate => ReferenceEquals(candidate, token)) < doubleDash))
            .Select(token => token.Value);
    }

    private static void ReportMissing(ArgumentResult result, IEnumerable<string?> paths)
    {
        foreach (string path in paths.OfType<string>())
        {
            if (!File.Exists(path) && !Directory.Exists(path))
            {
                result.AddError(MissingPrefix + $"'{path}'");
            }
        }
    }

    private static int IndexOf(IReadOnlyList<Token> tokens, Func<Token, bool> match)
    {
        for (int i = 0; i < tokens.Count; i++)
        {
            if (match(tokens[i]))
            {
                return i;
            }
        }

        return -1;
    }
}
