using System.Text.RegularExpressions;
using FastLoad.Tests.Architecture;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace FastLoad.Tests.Docs;

/// <summary>
/// Every C# block of the README and the docs compiles as pasted: alone, as the Program.cs of a new app of the template
/// it is written for (<c>dotnet new web</c> where it uses <c>WebApplication</c>, <c>dotnet new console</c> otherwise),
/// with the template's implicit usings and the two FastLoad packages, so a block shows every using it needs beyond those.
/// </summary>
public partial class SnippetTests
{
    private static readonly string[] ConsoleUsings =
        ["System", "System.Collections.Generic", "System.IO", "System.Linq", "System.Net.Http", "System.Threading", "System.Threading.Tasks"];

    private static readonly string[] WebUsings =
    [
        .. ConsoleUsings, "System.Net.Http.Json", "Microsoft.AspNetCore.Builder", "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Http",
        "Microsoft.AspNetCore.Routing", "Microsoft.Extensions.Configuration", "Microsoft.Extensions.DependencyInjection",
        "Microsoft.Extensions.Hosting", "Microsoft.Extensions.Logging",
    ];

    // Read once for every block: a few hundred assemblies.
    private static readonly Lazy<IReadOnlyList<MetadataReference>?> ConsoleReferences = new(() => References(web: false));
    private static readonly Lazy<IReadOnlyList<MetadataReference>?> WebReferences = new(() => References(web: true));

    public static TheoryData<string, int> Snippets()
    {
        var snippets = new TheoryData<string, int>();
        string root = SourceLayers.FindRepositoryRoot();
        foreach (string file in Documents(root))
        {
            for (int index = 0; index < CSharpBlocks(File.ReadAllText(file)).Count; index++)
            {
                snippets.Add(Path.GetRelativePath(root, file).Replace('\\', '/'), index);
            }
        }

        return snippets;
    }

    [Fact]
    public void Snippets_AreFoundInTheReadmeAndTheDocs()
    {
        // The quick start, the start-up manifest and the hosting examples at least: a change to the fences must not
        // silently leave every block untested.
        Assert.True(Snippets().Count >= 5, $"{Snippets().Count} C# blocks found");
    }

    [Theory]
    [MemberData(nameof(Snippets))]
    public void Snippet_CompilesAsPasted(string document, int index)
    {
        string code = CSharpBlocks(File.ReadAllText(Path.Combine(SourceLayers.FindRepositoryRoot(), document)))[index];
        bool web = code.Contains("WebApplication", StringComparison.Ordinal);
        IReadOnlyList<MetadataReference>? references = (web ? WebReferences : ConsoleReferences).Value;
        Assert.SkipWhen(references is null, "The ASP.NET Core shared framework is not installed beside this runtime (a self-contained test build).");

        string globalUsings = string.Concat((web ? WebUsings : ConsoleUsings).Select(name => $"global using global::{name};\n"));
        CSharpCompilation compilation = CSharpCompilation.Create(
            "Snippet",
            [
                CSharpSyntaxTree.ParseText(globalUsings, Options, "GlobalUsings.g.cs"),
                CSharpSyntaxTree.ParseText(code, Options, "Program.cs"),
            ],
            references,
            new CSharpCompilationOptions(OutputKind.ConsoleApplication, nullableContextOptions: NullableContextOptions.Enable));

        string[] errors = [.. compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error).Select(d => d.ToString())];
        Assert.True(errors.Length == 0, $"{document}, C# block {index + 1}:\n{string.Join("\n", errors)}\n---\n{code}");
    }

    private static CSharpParseOptions Options { get; } = new(LanguageVersion.Latest);

    private static IEnumerable<string> Documents(string root) =>
        new[] { Path.Combine(root, "README.md") }
            .Concat(Directory.EnumerateFiles(Path.Combine(root, "docs"), "*.md", SearchOption.AllDirectories))
            .Concat(Directory.EnumerateFiles(Path.Combine(root, "samples"), "*.md", SearchOption.AllDirectories))
            .Order(StringComparer.Ordinal);

    private static List<string> CSharpBlocks(string markdown) =>
        [.. CSharpFence().Matches(markdown.ReplaceLineEndings("\n")).Select(match => match.Groups["code"].Value)];

    [GeneratedRegex(@"^```(?:csharp|cs|c#)\n(?<code>.*?)^```$", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex CSharpFence();

    /// <summary>
    /// The runtime's assemblies and FastLoad's (those this test runs with), and for a web app the ASP.NET Core shared
    /// framework beside the runtime, whose copies of Microsoft.Extensions.* a web app compiles against; or
    /// <see langword="null"/> where that framework is not there.
    /// </summary>
    private static IReadOnlyList<MetadataReference>? References(bool web)
    {
        var byName = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (string path in ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            // The list can name an assembly twice.
            _ = byName.TryAdd(Path.GetFileName(path), path);
        }

        if (web)
        {
            // <root>/shared/Microsoft.NETCore.App/<version>/System.Private.CoreLib.dll -> <root>/shared/Microsoft.AspNetCore.App/<version>
            string runtime = Path.GetDirectoryName(typeof(object).Assembly.Location)!;
            string shared = Path.GetDirectoryName(Path.GetDirectoryName(runtime))!;
            string aspNetCore = Path.Combine(shared, "Microsoft.AspNetCore.App");
            string? framework = Directory.Exists(aspNetCore)
                ? Directory.GetDirectories(aspNetCore).Where(path => Path.GetFileName(path).Split('.')[0] == Environment.Version.Major.ToString(System.Globalization.CultureInfo.InvariantCulture))
                    .OrderByDescending(path => Version.TryParse(Path.GetFileName(path).Split('-')[0], out Version? version) ? version : new Version())
                    .FirstOrDefault()
                : null;
            if (framework is null)
            {
                return null;
            }

            foreach (string path in Directory.GetFiles(framework, "*.dll"))
            {
                byName[Path.GetFileName(path)] = path;
            }
        }

        return [.. byName.Values.Select(path => MetadataReference.CreateFromFile(path))];
    }
}
