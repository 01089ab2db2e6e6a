using System.Text;
using System.Text.RegularExpressions;

namespace FastLoad.Tests.Architecture;

/// <summary>One layer of src/FastLoad: a top-level folder (the root's own files are the front door).</summary>
/// <param name="Name">The layer's name in messages.</param>
/// <param name="Folder">Its top-level folder; empty for the files at src/FastLoad's root.</param>
/// <param name="Namespaces">The namespaces its files may declare (its internal one first).</param>
/// <param name="Uses">The layers its files may use besides their own.</param>
internal sealed record Layer(string Name, string Folder, string[] Namespaces, string[] Uses);

/// <summary>
/// The C# sources of src/FastLoad, read as text: which layer each declared type belongs to (by its file's folder), and
/// which types and namespaces each file names, in code or in a doc comment's <c>cref</c> (other comments and string
/// literals do not count).
/// </summary>
internal sealed partial class SourceLayers
{
    /// <summary>The layers, bottom to top; each uses only the ones it lists.</summary>
    public static readonly Layer[] Layers =
    [
        new("FileSystem", "FileSystem", ["FastLoad.FileSystem", "FastLoad"], []),
        new("Engine", "Engine", ["FastLoad.Engine", "FastLoad"], ["FileSystem"]),
        new("front door", string.Empty, ["FastLoad"], ["Engine", "FileSystem"]),
        new("Packing", "Packing", ["FastLoad.Packing", "FastLoad"], ["front door", "Engine", "FileSystem"]),
        new("DependencyInjection", "DependencyInjection", ["Microsoft.Extensions.DependencyInjection"], ["front door", "Engine", "FileSystem"]),
        new("FileProviders", "FileProviders", ["FastLoad.FileProviders", "FastLoad"], ["Packing", "front door", "Engine", "FileSystem"]),
    ];

    private readonly List<Source> _sources = [];

    // Type name -> the files that declare it (a name can be declared in several layers, nested types above all).
    private readonly Dictionary<string, List<Source>> _declarations = new(StringComparer.Ordinal);

    /// <param name="files">Each file's path relative to src/FastLoad, with '/', and its text.</param>
    public SourceLayers(IEnumerable<(string Path, string Text)> files)
    {
        foreach ((string path, string text) in files)
        {
            var source = new Source(path, LayerOf(path), CodeOf(text));
            _sources.Add(source);
            foreach (Match declaration in TypeDeclaration().Matches(source.Code))
            {
                string name = declaration.Groups["name"].Value;
                if (!_declarations.TryGetValue(name, out List<Source>? declaring))
                {
                    _declarations[name] = declaring = [];
                }

                declaring.Add(source);
            }
        }
    }

    /// <summary>The sources under <c>src/FastLoad</c> of the repository at <paramref name="repositoryRoot"/> (build output left out).</summary>
    public static SourceLayers Read(string repositoryRoot)
    {
        string library = Path.Combine(repositoryRoot, "src", "FastLoad");
        var files = Directory.EnumerateFiles(library, "*.cs", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(library, path).Replace(Path.DirectorySeparatorChar, '/'))
            .Where(path => !path.StartsWith("bin/", StringComparison.Ordinal) && !path.StartsWith("obj/", StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)
            .Select(path => (path, File.ReadAllText(Path.Combine(library, path))));
        return new SourceLayers(files);
    }

    /// <summary>The folder holding FastLoad.sln, found by walking up from the test's output folder.</summary>
    public static string FindRepositoryRoot()
    {
        for (string? directory = AppContext.BaseDirectory; directory is not null; directory = Path.GetDirectoryName(directory))
        {
            if (File.Exists(Path.Combine(directory, "FastLoad.sln")))
            {
                return directory;
            }
        }

        throw new DirectoryNotFoundException($"No folder above {AppContext.BaseDirectory} holds FastLoad.sln.");
    }

    public int FileCount => _sources.Count;

    /// <summary>Files in a top-level folder that is no layer.</summary>
    public IEnumerable<string> FilesOutsideLayers() =>
        _sources.Where(source => source.Layer is null).Select(source => $"{source.Path} lies in no layer: add its folder to SourceLayers.Layers.");

    /// <summary>Files that declare a namespace their layer does not own.</summary>
    public IEnumerable<string> FilesInAnotherLayersNamespace()
    {
        foreach (Source source in _sources.Where(source => source.Layer is not null))
        {
            foreach (Match declaration in NamespaceDeclaration().Matches(source.Code))
            {
                string name = declaration.Groups["name"].Value;
                if (!source.Layer!.Namespaces.Contains(name))
                {
                    yield return $"{source.Path} declares namespace {name}; the {source.Layer.Name} layer's files declare {string.Join(" or ", source.Layer.Namespaces)}.";
                }
            }
        }
    }

    /// <summary>Every use of a type or namespace of a layer the file's own layer may not use.</summary>
    public IEnumerable<string> UpwardUses()
    {
        foreach (Source source in _sources.Where(source => source.Layer is not null))
        {
            Layer layer = source.Layer!;
            foreach ((string name, Layer other, string where) in Uses(source))
            {
                if (other != layer && !layer.Uses.Contains(other.Name))
                {
                    yield return $"{source.Path} ({layer.Name} layer) uses {name} of the {other.Name} layer ({where}); "
                        + $"{layer.Name} may use {(layer.Uses.Length == 0 ? "no other layer" : string.Join(", ", layer.Uses))}.";
                }
            }
        }
    }

    /// <summary>
    /// The cycles among the layers' dependencies as the sources have them, whatever <see cref="Layer.Uses"/> says:
    /// each as "A -> B (file) -> A (file)".
    /// </summary>
    public IEnumerable<string> Cycles()
    {
        // A -> B, with the first file of A seen using B.
        var edges = new Dictionary<string, Dictionary<string, string>>(StringComparer.Ordinal);
        foreach (Source source in _sources.Where(source => source.Layer is not null))
        {
            foreach ((_, Layer other, _) in Uses(source))
            {
                if (other != source.Layer)
                {
                    Dictionary<string, string> targets = edges.TryGetValue(source.Layer!.Name, out var known) ? known : edges[source.Layer.Name] = [];
                    targets.TryAdd(other.Name, source.Path);
                }
            }
        }

        var reported = new HashSet<string>(StringComparer.Ordinal);
        foreach (string start in edges.Keys.Order(StringComparer.Ordinal))
        {
            foreach (List<string> cycle in CyclesThrough(start, edges))
            {
                // One report per cycle, whichever layer it is found from.
                string key = string.Join(",", cycle.Order(StringComparer.Ordinal));
                if (reported.Add(key))
                {
                    var path = new StringBuilder(cycle[0]);
                    for (int i = 0; i < cycle.Count; i++)
                    {
                        string to = cycle[(i + 1) % cycle.Count];
                        path.Append($" -> {to} ({edges[cycle[i]][to]})");
                    }

                    yield return path.ToString();
                }
            }
        }
    }

    /// <summary>The simple cycles that start and end at <paramref name="start"/>, each as its layers in order.</summary>
    private static IEnumerable<List<string>> CyclesThrough(string start, Dictionary<string, Dictionary<string, string>> edges)
    {
        var path = new List<string> { start };
        var found = new List<List<string>>();
        void Walk(string from)
        {
            foreach (string to in edges.TryGetValue(from, out var targets) ? targets.Keys : Enumerable.Empty<string>())
            {
                if (to == start)
                {
                    found.Add([.. path]);
                }
                else if (!path.Contains(to))
                {
                    path.Add(to);
                    Walk(to);
                    path.RemoveAt(path.Count - 1);
                }
            }
        }

        Walk(start);
        return found;
    }

    /// <summary>
    /// The layers whose types or namespaces <paramref name="source"/> names, with what it names and where that is
    /// declared. A name declared in the file's own layer is taken to be that one (nested types share short names).
    /// </summary>
    private IEnumerable<(string Name, Layer Layer, string Where)> Uses(Source source)
    {
        foreach (string name in Identifier().Matches(source.Code).Select(match => match.Value).Distinct(StringComparer.Ordinal))
        {
            if (!_declarations.TryGetValue(name, out List<Source>? declaring) || declaring.Any(other => other.Layer == source.Layer))
            {
                continue;
            }

            foreach (Source other in declaring.Where(other => other.Layer is not null).DistinctBy(other => other.Layer))
            {
                yield return (name, other.Layer!, other.Path);
            }
        }

        foreach (string name in LayerNamespace().Matches(source.Code).Select(match => match.Groups["name"].Value).Distinct(StringComparer.Ordinal))
        {
            if (Layers.FirstOrDefault(layer => layer.Namespaces[0] == $"FastLoad.{name}") is { } owner)
            {
                yield return ($"namespace FastLoad.{name}", owner, $"{owner.Folder}/");
            }
        }
    }

    private static Layer? LayerOf(string path)
    {
        int slash = path.IndexOf('/', StringComparison.Ordinal);
        string folder = slash < 0 ? string.Empty : path[..slash];
        return Layers.FirstOrDefault(layer => layer.Folder == folder);
    }

    /// <summary>
    /// The code of a C# file with comments and the contents of string and character literals blanked out; the
    /// <c>cref</c>s of doc comments are kept, and so is the code inside interpolated strings' holes.
    /// </summary>
    internal static string CodeOf(string text)
    {
        var code = new StringBuilder(text.Length);
        int i = 0;
        CopyCode(text, ref i, code, inHole: false);
        return code.ToString();
    }

    /// <summary>Copies code from <paramref name="i"/> to the end, or in a hole to the '}' that closes it.</summary>
    private static void CopyCode(string text, ref int i, StringBuilder code, bool inHole)
    {
        int braces = 0;
        while (i < text.Length)
        {
            char c = text[i];
            if (inHole && c == '}' && braces-- == 0)
            {
                return;
            }

            if (c == '{')
            {
                braces++;
            }

            if (c == '/' && At(text, i + 1) == '/')
            {
                int end = text.IndexOf('\n', i) is int newline and >= 0 ? newline : text.Length;
                if (At(text, i + 2) == '/')
                {
                    foreach (Match cref in Cref().Matches(text[i..end]))
                    {
                        code.Append(' ').Append(cref.Groups["name"].Value);
                    }
                }

                i = end;
            }
            else if (c == '/' && At(text, i + 1) == '*')
            {
                int end = text.IndexOf("*/", i + 2, StringComparison.Ordinal);
                i = end < 0 ? text.Length : end + 2;
                code.Append(' ');
            }
            else if (c == '\'')
            {
                // 'x', '\'', '\u0041': the quote that ends it is the first one after the character or its escape.
                i += At(text, i + 1) == '\\' ? 3 : 2;
                while (i < text.Length && text[i] != '\'')
                {
                    i++;
                }

                i++;
                code.Append("' '");
            }
            else if (StringStart(text, i) is (int quotes, int dollars, bool verbatim, int contentStart))
            {
                i = contentStart;
                SkipString(text, ref i, code, quotes, dollars, verbatim);
                code.Append("\"\"");
            }
            else
            {
                code.Append(c);
                i++;
            }
        }
    }

    /// <summary>Whether a string literal starts at <paramref name="i"/>: its opening quotes, its '$'s, whether verbatim, where its text starts.</summary>
    private static (int Quotes, int Dollars, bool Verbatim, int ContentStart)? StringStart(string text, int i)
    {
        int dollars = 0;
        bool verbatim = false;
        int j = i;
        while (At(text, j) is '$' or '@')
        {
            dollars += text[j] == '$' ? 1 : 0;
            verbatim |= text[j] == '@';
            j++;
        }

        if (At(text, j) != '"')
        {
            return null;
        }

        int quotes = 0;
        while (At(text, j + quotes) == '"')
        {
            quotes++;
        }

        // Two quotes are an empty string, not a raw one's delimiter.
        return quotes == 2 ? (1, dollars, verbatim, j + 1) : (quotes, dollars, verbatim, j + quotes);
    }

    /// <summary>Moves <paramref name="i"/> past the string whose text starts there, copying the code of its holes.</summary>
    private static void SkipString(string text, ref int i, StringBuilder code, int quotes, int dollars, bool verbatim)
    {
        while (i < text.Length)
        {
            char c = text[i];
            if (quotes == 1 && !verbatim && c == '\\')
            {
                i += 2;
            }
            else if (c == '"' && quotes == 1 && verbatim && At(text, i + 1) == '"')
            {
                i += 2;
            }
            else if (c == '"' && Run(text, i, '"') >= quotes)
            {
                i += quotes;
                return;
            }
            else if (c == '{' && dollars > 0)
            {
                // A hole opens with as many braces as the string has '$'s (one for "$..."); "{{" in "$..." is a brace.
                int run = Run(text, i, '{');
                int opening = quotes >= 3 ? dollars : 1;
                if (quotes < 3 && run >= 2)
                {
                    i += 2;
                    continue;
                }

                if (run < opening)
                {
                    i += run;
                    continue;
                }

                i += run;
                code.Append(' ');
                CopyCode(text, ref i, code, inHole: true);
                code.Append(' ');
                i += Math.Max(1, Math.Min(opening, Run(text, i, '}')));
            }
            else
            {
                i++;
            }
        }
    }

    private static char At(string text, int i) => i < text.Length ? text[i] : '\0';

    private static int Run(string text, int i, char c)
    {
        int count = 0;
        while (At(text, i + count) == c)
        {
            count++;
        }

        return count;
    }

    // A declaration at the start of a line, after attributes and modifiers, as this codebase writes them.
    private const string DeclarationPattern =
        @"^[ \t]*(?:\[[^\]\n]*\][ \t]*)*"
        + @"(?:(?:public|internal|private|protected|static|sealed|abstract|partial|readonly|unsafe|file|ref|new)\s+)*"
        + @"(?:class|struct|interface|enum|record(?:\s+class|\s+struct)?)\s+(?<name>[A-Za-z_]\w*)";

    [GeneratedRegex(DeclarationPattern, RegexOptions.Multiline)]
    private static partial Regex TypeDeclaration();

    [GeneratedRegex(@"^namespace\s+(?<name>[\w.]+)", RegexOptions.Multiline)]
    private static partial Regex NamespaceDeclaration();

    [GeneratedRegex(@"(?<![\w.])[A-Za-z_]\w*")]
    private static partial Regex Identifier();

    // A layer's namespace, in a using directive or qualifying a name: FastLoad.Engine, or Engine.X from within FastLoad.
    [GeneratedRegex(@"(?<![\w.])(?:FastLoad\.)?(?<name>FileSystem|Engine|Packing|FileProviders)(?=\s*[.;])")]
    private static partial Regex LayerNamespace();

    [GeneratedRegex(@"cref=""(?<name>[^""]+)""")]
    private static partial Regex Cref();

    private sealed record Source(string Path, Layer? Layer, string Code);
}
