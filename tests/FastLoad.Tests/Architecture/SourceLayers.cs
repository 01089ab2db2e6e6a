using System.IO.Compression;
using System.Reflection.Metadata;
using System.Text;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Text;

namespace FastLoad.Tests.Architecture;

/// <summary>One layer of src/FastLoad: a top-level folder (the root's own files are the front door).</summary>
/// <param name="Name">The layer's name in messages.</param>
/// <param name="Folder">Its top-level folder; empty for the files at src/FastLoad's root.</param>
/// <param name="Namespaces">The namespaces its types may be declared in (its internal one first).</param>
/// <param name="Uses">The layers its files may use besides their own.</param>
internal sealed record Layer(string Name, string Folder, string[] Namespaces, string[] Uses);

/// <summary>
/// A name in one layer's file that binds to a symbol declared in another layer.
/// </summary>
/// <param name="Path">The file, relative to src/FastLoad.</param>
/// <param name="Line">The name's line, from 1.</param>
/// <param name="From">The file's layer.</param>
/// <param name="Written">The name as written, with the qualifiers it was written with.</param>
/// <param name="Symbol">What the name binds to.</param>
/// <param name="To">The layer that declares it.</param>
/// <param name="DeclaredIn">The file that declares it (a namespace's: its layer's folder).</param>
internal sealed record LayerUse(string Path, int Line, Layer From, string Written, string Symbol, Layer To, string DeclaredIn)
{
    public override string ToString() =>
        $"{Path}:{Line} ({From.Name} layer) uses {Symbol} of the {To.Name} layer ({DeclaredIn}), written '{Written}'; "
        + $"{From.Name} may use {(From.Uses.Length == 0 ? "no other layer" : string.Join(", ", From.Uses))}.";
}

/// <summary>
/// The C# sources of src/FastLoad, compiled: every name in them (in code, in a <c>using</c> directive, in an attribute,
/// in <c>nameof</c> or a doc comment's <c>cref</c>) is bound to the symbol it means, and that symbol belongs to the layer
/// of the file that declares it. How a name is spelled (simple, qualified, through an alias or <c>using static</c>)
/// does not matter; comments and string literals are not names.
/// </summary>
internal sealed class SourceLayers
{
    /// <summary>The layers, bottom to top; each uses only the ones it lists.</summary>
    public static readonly Layer[] Layers =
    [
        new("FileSystem", "FileSystem", ["FastLoad.FileSystem", "FastLoad"], []),
        new("Engine", "Engine", ["FastLoad.Engine", "FastLoad"], ["FileSystem"]),
        new("front door", string.Empty, ["FastLoad"], ["Engine", "FileSystem"]),
        new("Prefetch", "Prefetch", ["FastLoad.Prefetch", "FastLoad"], ["Engine", "FileSystem"]),
        new("Packing", "Packing", ["FastLoad.Packing", "FastLoad"], ["front door", "Engine", "FileSystem"]),
        new("DependencyInjection", "DependencyInjection", ["Microsoft.Extensions.DependencyInjection"], ["front door", "Engine", "FileSystem"]),
        new("FileProviders", "FileProviders", ["FastLoad.FileProviders", "FastLoad"], ["Packing", "front door", "Engine", "FileSystem"]),
    ];

    // Crefs are bound only when doc comments are diagnosed; a cref that binds to nothing is a warning there. The
    // configuration binder's generated code intercepts calls, which the SDK allows its namespace to do.
    private static readonly CSharpParseOptions ParseOptions = new CSharpParseOptions(LanguageVersion.Latest, DocumentationMode.Diagnose)
        .WithFeatures([new("InterceptorsNamespaces", "Microsoft.Extensions.Configuration.Binder.SourceGeneration")]);

    // The warnings for a cref that binds to nothing, or to no one symbol.
    private static readonly HashSet<string> UnresolvedCref = ["CS1574", "CS1580", "CS1581", "CS1584", "CS0419"];

    // The kind of a portable PDB's custom debug information that holds a document's text.
    private static readonly Guid EmbeddedSource = new("0E8A571B-6926-466E-B4AD-8AB04611F5FE");

    // Every compilation starts from this one, so the references' symbols are read once per test run, not per test.
    private static readonly Lazy<CSharpCompilation> Empty = new(() => CSharpCompilation.Create(
        "FastLoad",
        references: PlatformReferences(),
        options: new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable, allowUnsafe: true)));

    private readonly List<Source> _sources = [];
    private readonly Dictionary<SyntaxTree, Source> _byTree = [];
    private readonly CSharpCompilation _compilation;
    private readonly Lazy<LayerUse[]> _crossings;

    /// <param name="files">Each file's path relative to src/FastLoad, with '/', and its text.</param>
    /// <param name="generated">
    /// The files the build adds to them (global usings, source generators' output): compiled with them, never checked.
    /// </param>
    public SourceLayers(IEnumerable<(string Path, string Text)> files, IEnumerable<(string Path, SourceText Text)> generated)
    {
        foreach ((string path, string text) in files)
        {
            var source = new Source(path, LayerOf(path), CSharpSyntaxTree.ParseText(text, ParseOptions, path));
            _sources.Add(source);
            _byTree.Add(source.Tree, source);
        }

        _compilation = Empty.Value
            .AddSyntaxTrees(generated.Select(file => CSharpSyntaxTree.ParseText(file.Text, ParseOptions, file.Path)))
            .AddSyntaxTrees(_sources.Select(source => source.Tree));
        _crossings = new(() => [.. _sources.Where(source => source.Layer is not null).SelectMany(Crossings)]);
    }

    /// <summary>
    /// The sources under <c>src/FastLoad</c> of the repository at <paramref name="repositoryRoot"/> (build output left out),
    /// with what the build of the FastLoad.dll this test runs with added to them.
    /// </summary>
    public static SourceLayers Read(string repositoryRoot)
    {
        string library = Path.Combine(repositoryRoot, "src", "FastLoad");
        string[] paths = [.. Directory.EnumerateFiles(library, "*.cs", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(library, path).Replace(Path.DirectorySeparatorChar, '/'))
            .Where(path => !path.StartsWith("bin/", StringComparison.Ordinal) && !path.StartsWith("obj/", StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)];
        return new SourceLayers(paths.Select(path => (path, File.ReadAllText(Path.Combine(library, path)))), GeneratedFiles(paths));
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

    /// <summary>
    /// The compiler's errors and the crefs it could not bind: a name that binds to nothing would pass every layer rule
    /// unseen.
    /// </summary>
    public IEnumerable<string> UnresolvedNames() => _compilation.GetDiagnostics()
        .Where(diagnostic => diagnostic.Severity == DiagnosticSeverity.Error || UnresolvedCref.Contains(diagnostic.Id))
        .Select(diagnostic => diagnostic.ToString());

    /// <summary>
    /// Code that an <c>#if</c> leaves out of this compilation, which defines no symbol: no name in it is bound, so no rule
    /// could see a use there.
    /// </summary>
    public IEnumerable<string> CodeLeftOut() => _sources.SelectMany(source => source.Tree.GetRoot().DescendantTrivia()
        .Where(trivia => trivia.IsKind(SyntaxKind.DisabledTextTrivia))
        .Select(trivia => $"{source.Path}:{trivia.GetLocation().GetLineSpan().StartLinePosition.Line + 1} is left out by an #if, where no layer rule "
            + "sees it; guard platform code with OperatingSystem.IsLinux() and the like."));

    /// <summary>Files in a top-level folder that is no layer.</summary>
    public IEnumerable<string> FilesOutsideLayers() =>
        _sources.Where(source => source.Layer is null).Select(source => $"{source.Path} lies in no layer: add its folder to SourceLayers.Layers.");

    /// <summary>Types declared in a namespace their file's layer does not own.</summary>
    public IEnumerable<string> TypesInAnotherLayersNamespace()
    {
        foreach (Source source in _sources.Where(source => source.Layer is not null))
        {
            SemanticModel model = _compilation.GetSemanticModel(source.Tree);
            foreach (INamedTypeSymbol type in DeclaredTypes(source.Tree, model).Where(type => type.ContainingType is null))
            {
                string name = type.ContainingNamespace.IsGlobalNamespace ? "the global namespace" : $"namespace {type.ContainingNamespace.ToDisplayString()}";
                if (!source.Layer!.Namespaces.Contains(type.ContainingNamespace.ToDisplayString()))
                {
                    yield return $"{source.Path} declares {type.Name} in {name}; the {source.Layer.Name} layer's types are declared in {string.Join(" or ", source.Layer.Namespaces)}.";
                }
            }
        }
    }

    /// <summary>Partial types whose parts lie in more than one layer (such a type would belong to none).</summary>
    public IEnumerable<string> TypesSpreadOverLayers() => _sources
        .Where(source => source.Layer is not null)
        .SelectMany(source => DeclaredTypes(source.Tree, _compilation.GetSemanticModel(source.Tree)))
        .Distinct<INamedTypeSymbol>(SymbolEqualityComparer.Default)
        .Select(type => (Type: type, Files: DeclaringSources(type)))
        .Where(type => type.Files.Select(file => file.Layer).Distinct().Count() > 1)
        .Select(type => $"{type.Type.ToDisplayString()} is declared in {string.Join(", ", type.Files.Select(file => $"{file.Path} ({file.Layer!.Name} layer)"))}; a type's parts lie in one layer.");

    /// <summary>Every use of a symbol of a layer the file's own layer may not use.</summary>
    public IEnumerable<LayerUse> UpwardUses() => _crossings.Value.Where(use => !use.From.Uses.Contains(use.To.Name));

    /// <summary>
    /// Each name in the files under <paramref name="folder"/> (relative to src/FastLoad, ending in '/') that binds to a
    /// symbol declared in <paramref name="declaringFile"/>: a rule inside one layer, such as which type a folder may not
    /// reach.
    /// </summary>
    public IEnumerable<LayerUse> UsesOf(string folder, string declaringFile) => _sources
        .Where(source => source.Layer is not null && source.Path.StartsWith(folder, StringComparison.Ordinal))
        .SelectMany(source => Uses(source, (_, declaredIn) => declaredIn == declaringFile));

    /// <summary>
    /// The cycles among the layers' dependencies as the sources have them, whatever <see cref="Layer.Uses"/> says:
    /// each as "A -> B (file) -> A (file)".
    /// </summary>
    public IEnumerable<string> Cycles()
    {
        // A -> B, with the first file of A seen using B.
        var edges = new Dictionary<string, Dictionary<string, string>>(StringComparer.Ordinal);
        foreach (LayerUse use in _crossings.Value)
        {
            Dictionary<string, string> targets = edges.TryGetValue(use.From.Name, out var known) ? known : edges[use.From.Name] = [];
            targets.TryAdd(use.To.Name, use.Path);
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
    /// Each name in <paramref name="source"/>, doc comments included, that binds to a symbol of another layer: once per
    /// symbol and spelling, at its first line.
    /// </summary>
    private IEnumerable<LayerUse> Crossings(Source source) => Uses(source, (layer, _) => layer != source.Layer);

    /// <summary>
    /// Each name in <paramref name="source"/>, doc comments included, that binds to a symbol of a layer whose
    /// declaration <paramref name="wanted"/> accepts (the layer, the declaring file): once per symbol and spelling, at
    /// its first line.
    /// </summary>
    private IEnumerable<LayerUse> Uses(Source source, Func<Layer, string, bool> wanted)
    {
        SemanticModel model = _compilation.GetSemanticModel(source.Tree);
        var seen = new HashSet<(string Symbol, string Written)>();
        foreach (SimpleNameSyntax name in source.Tree.GetRoot().DescendantNodes(descendIntoTrivia: true).OfType<SimpleNameSyntax>())
        {
            if (DeclaresANamespace(name))
            {
                continue;
            }

            SymbolInfo info = model.GetSymbolInfo(name);
            foreach (ISymbol bound in info.Symbol is { } symbol ? [symbol] : info.CandidateSymbols)
            {
                ISymbol declared = Declaration(bound);
                if (LayerOf(declared) is not (Layer layer, string declaredIn) || !wanted(layer, declaredIn))
                {
                    continue;
                }

                string display = declared is INamespaceSymbol ? $"namespace {declared.ToDisplayString()}" : declared.ToDisplayString();
                string written = Written(name);
                if (seen.Add((display, written)))
                {
                    yield return new LayerUse(source.Path, name.GetLocation().GetLineSpan().StartLinePosition.Line + 1, source.Layer!, written, display, layer, declaredIn);
                }
            }
        }
    }

    /// <summary>
    /// The layer that declares <paramref name="symbol"/> and the file it is declared in. A namespace belongs to the one
    /// layer that lists it, unless the platform declares it too; a member only generated code declares, to its type's
    /// layer; anything else declared outside these sources, or by several layers, to none.
    /// </summary>
    private (Layer Layer, string DeclaredIn)? LayerOf(ISymbol symbol)
    {
        if (symbol.Locations.Any(location => !location.IsInSource))
        {
            return null;
        }

        if (symbol is INamespaceSymbol space)
        {
            string name = space.ToDisplayString();
            return Layers.Where(layer => layer.Namespaces.Contains(name)).ToArray() is [Layer owner] ? (owner, $"{owner.Folder}/") : null;
        }

        Source[] declaring = DeclaringSources(symbol);
        if (declaring.Length == 0)
        {
            return symbol.ContainingType is { } type ? LayerOf(type) : null;
        }

        return declaring.Select(source => source.Layer).Distinct().ToArray() is [Layer layer] ? (layer, declaring[0].Path) : null;
    }

    /// <summary>The files of these sources that declare <paramref name="symbol"/> (generated files are none of them).</summary>
    private Source[] DeclaringSources(ISymbol symbol) =>
        [.. symbol.Locations.Select(location => location.SourceTree is { } tree && _byTree.TryGetValue(tree, out Source? source) ? source : null).OfType<Source>()];

    /// <summary>The declaration a bound symbol stands for: a method's definition, a constructor's type.</summary>
    private static ISymbol Declaration(ISymbol symbol) => symbol switch
    {
        IMethodSymbol { MethodKind: MethodKind.Constructor } constructor => constructor.ContainingType.OriginalDefinition,
        IMethodSymbol { ReducedFrom: { } extension } => extension.OriginalDefinition,
        _ => symbol.OriginalDefinition,
    };

    /// <summary>The name with the qualifiers written before it: <c>global::FastLoad.FileLoader</c> for its last part.</summary>
    private static string Written(SimpleNameSyntax name)
    {
        SyntaxNode written = name;
        while (written.Parent is QualifiedNameSyntax qualified && qualified.Right == written
            || written.Parent is AliasQualifiedNameSyntax aliased && aliased.Name == written
            || written.Parent is MemberAccessExpressionSyntax access && access.Name == written)
        {
            written = written.Parent;
        }

        return written.ToString();
    }

    /// <summary>Whether <paramref name="name"/> is part of a namespace declaration's name, which declares rather than uses.</summary>
    private static bool DeclaresANamespace(SimpleNameSyntax name)
    {
        SyntaxNode top = name;
        while (top.Parent is QualifiedNameSyntax)
        {
            top = top.Parent;
        }

        return top.Parent is BaseNamespaceDeclarationSyntax declaration && declaration.Name == top;
    }

    private static IEnumerable<INamedTypeSymbol> DeclaredTypes(SyntaxTree tree, SemanticModel model) => tree.GetRoot().DescendantNodes()
        .Where(node => node is BaseTypeDeclarationSyntax or DelegateDeclarationSyntax)
        .Select(declaration => (INamedTypeSymbol)model.GetDeclaredSymbol(declaration)!);

    private static Layer? LayerOf(string path)
    {
        int slash = path.IndexOf('/', StringComparison.Ordinal);
        string folder = slash < 0 ? string.Empty : path[..slash];
        return Layers.FirstOrDefault(layer => layer.Folder == folder);
    }

    /// <summary>
    /// The files the build compiled into FastLoad.dll besides <paramref name="sources"/> (the SDK's global usings, the
    /// generators' partial methods and validators): the compiler embeds their text in FastLoad.pdb, as it does for every
    /// file that source control does not hold.
    /// </summary>
    private static IEnumerable<(string Path, SourceText Text)> GeneratedFiles(string[] sources)
    {
        string pdb = Path.ChangeExtension(typeof(FileLoader).Assembly.Location, ".pdb");
        using var provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(pdb));
        MetadataReader reader = provider.GetMetadataReader();
        var files = new List<(string, SourceText)>();
        foreach (DocumentHandle document in reader.Documents)
        {
            string path = reader.GetString(reader.GetDocument(document).Name).Replace('\\', '/');
            if (!sources.Any(source => path.EndsWith("/src/FastLoad/" + source, StringComparison.Ordinal)) && EmbeddedText(reader, document) is { } text)
            {
                files.Add((path, text));
            }
        }

        return files.Count > 0 ? files : throw new InvalidDataException($"{pdb} embeds no generated file: is it a portable PDB?");
    }

    /// <summary>The text a PDB embeds for <paramref name="document"/>: a length, then the text, deflated when the length is not 0.</summary>
    private static SourceText? EmbeddedText(MetadataReader reader, DocumentHandle document)
    {
        foreach (CustomDebugInformationHandle handle in reader.GetCustomDebugInformation(document))
        {
            CustomDebugInformation information = reader.GetCustomDebugInformation(handle);
            if (reader.GetGuid(information.Kind) == EmbeddedSource)
            {
                byte[] blob = reader.GetBlobBytes(information.Value);
                var stored = new MemoryStream(blob, sizeof(int), blob.Length - sizeof(int));
                using Stream content = BitConverter.ToInt32(blob, 0) == 0 ? stored : new DeflateStream(stored, CompressionMode.Decompress);
                var text = new MemoryStream();
                content.CopyTo(text);
                text.Position = 0;
                return SourceText.From(text);
            }
        }

        return null;
    }

    /// <summary>
    /// The assemblies this test runs with, as the library compiles against them (FastLoad's own and those built on it
    /// left out, since these sources declare its types).
    /// </summary>
    private static IEnumerable<MetadataReference> PlatformReferences() =>
        ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator)
            .Where(path => !Path.GetFileName(path).StartsWith("FastLoad", StringComparison.OrdinalIgnoreCase))
            .Select(path => MetadataReference.CreateFromFile(path));

    private sealed record Source(string Path, Layer? Layer, SyntaxTree Tree);
}
