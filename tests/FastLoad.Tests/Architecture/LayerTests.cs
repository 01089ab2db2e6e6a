using Microsoft.CodeAnalysis.Text;

namespace FastLoad.Tests.Architecture;

/// <summary>
/// The layers of src/FastLoad point one way: FileSystem -> Engine -> the front door (FileLoader.cs) -> Packing and
/// DependencyInjection -> FileProviders (docs/architecture.md). The sources are compiled and each name is checked by the
/// symbol it binds to, so that a use in the wrong direction fails here however it is spelled, naming the file and line.
/// </summary>
public class LayerTests
{
    private const string FileReaderPath = "FileSystem/Reading/FileReader.cs";

    // What the SDK adds to a library with ImplicitUsings=enable, as the build adds it to FastLoad's own files.
    private const string ImplicitUsings = """
        global using global::System;
        global using global::System.Collections.Generic;
        global using global::System.IO;
        global using global::System.Linq;
        global using global::System.Net.Http;
        global using global::System.Threading;
        global using global::System.Threading.Tasks;
        """;

    private static readonly Lazy<SourceLayers> Library = new(() => SourceLayers.Read(SourceLayers.FindRepositoryRoot()));

    [Fact]
    public void Sources_EveryFileAndType_LiesInOneLayerAndItsNamespaces()
    {
        Assert.True(Library.Value.FileCount > 50, $"Only {Library.Value.FileCount} files were found under src/FastLoad.");

        string[] problems = [.. Library.Value.FilesOutsideLayers(), .. Library.Value.TypesInAnotherLayersNamespace(), .. Library.Value.TypesSpreadOverLayers()];

        Assert.True(problems.Length == 0, string.Join(Environment.NewLine, problems));
    }

    [Fact]
    public void Sources_EveryLine_IsCompiledAndEveryNameBinds()
    {
        string[] unresolved = [.. Library.Value.CodeLeftOut(), .. Library.Value.UnresolvedNames()];

        Assert.True(unresolved.Length == 0, string.Join(Environment.NewLine, unresolved));
    }

    [Fact]
    public void Sources_NoFile_UsesASymbolOfALayerAboveItsOwn()
    {
        LayerUse[] violations = [.. Library.Value.UpwardUses()];

        Assert.True(violations.Length == 0, string.Join(Environment.NewLine, violations.Select(use => use.ToString())));
    }

    [Fact]
    public void Sources_TopLevelFolders_DependOnEachOtherInNoCycle()
    {
        string[] cycles = [.. Library.Value.Cycles()];

        Assert.True(cycles.Length == 0, "Layers that use each other: " + string.Join(Environment.NewLine, cycles));
    }

    // The checker itself, on sources made up for it: each rule must be able to fail.

    /// <summary>
    /// The file-system layer names the front door's FileLoader, which itself uses the file system: both rules fail, at the
    /// line of the use, however the name is spelled.
    /// </summary>
    [Theory]
    [InlineData("simple name", "namespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static FileLoader? Loader; }", "FileLoader", 3)]
    [InlineData("fully qualified", "namespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static FastLoad.FileLoader? Loader; }", "FastLoad.FileLoader", 3)]
    [InlineData("global::", "namespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static global::FastLoad.FileLoader? Loader; }", "global::FastLoad.FileLoader", 3)]
    [InlineData("using alias", "using Front = FastLoad.FileLoader;\n\nnamespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static Front? Loader; }", "Front", 5)]
    [InlineData("using static", "using static FastLoad.FileLoader;\n\nnamespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static int Loaders => Count(); }", "Count", 5)]
    [InlineData("nameof", "namespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal const string Name = nameof(FileLoader); }", "FileLoader", 3)]
    [InlineData("typeof", "namespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static Type Loader => typeof(FileLoader); }", "FileLoader", 3)]
    [InlineData("generic argument", "namespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static readonly List<FileLoader> Loaders = []; }", "FileLoader", 3)]
    [InlineData("attribute", "namespace FastLoad.FileSystem;\n\n[FrontDoor]\ninternal static class FileReader { }", "FrontDoor", 3)]
    [InlineData("doc cref", "namespace FastLoad.FileSystem;\n\n/// <summary>Reads for <see cref=\"FileLoader\"/>.</summary>\ninternal static class FileReader { }", "FileLoader", 3)]
    [InlineData("issue 28's probe", "namespace FastLoad.FileSystem;\n\ninternal static class FileReader { }\n\ninternal static class LayerProbe { internal static System.Type T => typeof(FastLoad.FileLoader); }", "FastLoad.FileLoader", 5)]
    public void UpwardUsesAndCycles_FrontDoorNamedFromTheFileSystem_FailHoweverItIsSpelled(string spelling, string fileReader, string written, int line)
    {
        SourceLayers sources = FileReaderBesideFrontDoor(fileReader);

        Assert.Empty(sources.UnresolvedNames());
        LayerUse[] uses = [.. sources.UpwardUses()];
        LayerUse? use = uses.SingleOrDefault(use => use.Written == written && use.Line == line);
        Assert.True(use is not null, $"No use written '{written}' ({spelling}) at line {line}; found: {string.Join(" | ", uses.Select(found => found.ToString()))}");
        Assert.Equal((FileReaderPath, "FileSystem", "front door", "FileLoader.cs"), (use.Path, use.From.Name, use.To.Name, use.DeclaredIn));
        Assert.StartsWith($"{FileReaderPath}:{line} (FileSystem layer) uses FastLoad.", use.ToString(), StringComparison.Ordinal);
        Assert.EndsWith($"written '{written}'; FileSystem may use no other layer.", use.ToString(), StringComparison.Ordinal);
        Assert.Equal($"FileSystem -> front door ({FileReaderPath}) -> FileSystem (FileLoader.cs)", Assert.Single(sources.Cycles()));
    }

    [Theory]
    [InlineData("global using Front = FastLoad.FileLoader;", "internal static class FileReader { internal static Front? Loader; }", "Front")]
    [InlineData("global using static FastLoad.FileLoader;", "internal static class FileReader { internal static int Loaders => Count(); }", "Count")]
    public void UpwardUses_FrontDoorNamedThroughAGlobalUsingInItsOwnFile_IsFoundWhereItIsUsed(string globalUsing, string fileReader, string written)
    {
        var sources = Sources(
        [
            (FileReaderPath, "namespace FastLoad.FileSystem;\n\n" + fileReader),
            ("FileLoader.cs", globalUsing + "\n\nnamespace FastLoad;\n\npublic sealed class FileLoader { public static int Count() => 0; }"),
        ]);

        Assert.Empty(sources.UnresolvedNames());
        LayerUse use = Assert.Single(sources.UpwardUses());
        Assert.Equal((FileReaderPath, 3, written, "front door"), (use.Path, use.Line, use.Written, use.To.Name));
    }

    [Theory]
    [InlineData("// Feeds FileLoader.\ninternal static class FileReader { }")]
    [InlineData("/* FileLoader */ internal static class FileReader { }")]
    [InlineData("internal static class FileReader { private const string S = \"FileLoader\"; private const char C = '\"'; }")]
    [InlineData("internal static class FileReader { private static string S(int n) => $\"{n:N0} FileLoader {{FileLoader}}\"; }")]
    [InlineData("internal static class FileReader { private const string S = \"\"\"\n    FileLoader \"quoted\"\n    \"\"\"; }")]
    [InlineData("/// <summary>Not a cref: <c>FileLoader</c>.</summary>\ninternal static class FileReader { }")]
    [InlineData("internal static class FileReader { private static int S() { int FileLoader = 1; return FileLoader; } }")]
    [InlineData("internal static class FileReader { private sealed class FileLoader; private static FileLoader? s_loader; }")]
    public void UpwardUses_NameInCommentStringOrOfAnotherSymbol_IsNoUse(string fileReader)
    {
        SourceLayers sources = FileReaderBesideFrontDoor("namespace FastLoad.FileSystem;\n\n" + fileReader);

        Assert.Empty(sources.UnresolvedNames());
        Assert.Empty(sources.UpwardUses());
    }

    [Fact]
    public void UpwardUses_NamespaceOfALayerAbove_IsAUseOfThatLayer()
    {
        var sources = Sources(
        [
            (FileReaderPath, "using FastLoad.Engine;\n\nnamespace FastLoad.FileSystem;\n\ninternal static class FileReader { }"),
            ("Engine/Run/LoadRun.cs", "namespace FastLoad.Engine;\n\ninternal sealed class LoadRun { }"),
        ]);

        LayerUse use = Assert.Single(sources.UpwardUses());

        Assert.Equal((1, "namespace FastLoad.Engine", "Engine", "Engine/"), (use.Line, use.Symbol, use.To.Name, use.DeclaredIn));
    }

    [Fact]
    public void UpwardUses_NamespaceALayerSharesWithThePlatform_BelongsToNoLayer()
    {
        var sources = Sources(
        [
            ("DependencyInjection/Extensions.cs", "namespace Microsoft.Extensions.DependencyInjection;\n\npublic static class Extensions { }"),
            ("FileLoader.cs", "using Microsoft.Extensions.DependencyInjection;\n\nnamespace FastLoad;\n\npublic sealed class FileLoader { public static IServiceCollection? Services; }"),
        ]);

        Assert.Empty(sources.UnresolvedNames());
        Assert.Empty(sources.UpwardUses());
    }

    [Fact]
    public void UpwardUses_MemberOnlyGeneratedCodeDeclares_IsOfItsTypesLayer()
    {
        SourceLayers sources = Sources(
            [
                ("Engine/Run/LoadRun.cs", "namespace FastLoad.Engine;\n\ninternal static partial class LoadRun { }"),
                (FileReaderPath, "using static FastLoad.Engine.LoadRun;\n\nnamespace FastLoad.FileSystem;\n\ninternal static class FileReader { internal static int Runs => Generated(); }"),
            ],
            ("obj/LoadRun.g.cs", "namespace FastLoad.Engine;\n\ninternal static partial class LoadRun { internal static int Generated() => 0; }"));

        Assert.Empty(sources.UnresolvedNames());
        LayerUse use = Assert.Single(sources.UpwardUses(), use => use.Written == "Generated");
        Assert.Equal((5, "FastLoad.Engine.LoadRun.Generated()", "Engine", "Engine/Run/LoadRun.cs"), (use.Line, use.Symbol, use.To.Name, use.DeclaredIn));
    }

    [Fact]
    public void UpwardUses_SiblingLayers_MayNotUseEachOther()
    {
        var sources = Sources(
        [
            ("Packing/PackReader.cs", "namespace FastLoad;\n\npublic sealed class PackReader { }"),
            ("DependencyInjection/Extensions.cs", "namespace Microsoft.Extensions.DependencyInjection;\n\npublic static class Extensions { public static FastLoad.PackReader? Pack; }"),
        ]);

        LayerUse use = Assert.Single(sources.UpwardUses());

        Assert.Equal(
            "DependencyInjection/Extensions.cs:3 (DependencyInjection layer) uses FastLoad.PackReader of the Packing layer (Packing/PackReader.cs), "
            + "written 'FastLoad.PackReader'; DependencyInjection may use front door, Engine, FileSystem.",
            use.ToString());
    }

    [Fact]
    public void Sources_FileInAnUnknownFolderOrTypeInAnotherLayersNamespace_IsReported()
    {
        var sources = Sources(
        [
            ("Loading/LoadRun.cs", "namespace FastLoad.Loading;\n\ninternal sealed class LoadRun { }"),
            (FileReaderPath, "namespace FastLoad.Engine;\n\ninternal static class FileReader { }"),
            ("FileSystem/Reading/Outside.cs", "internal static class Outside { }"),
        ]);

        Assert.Equal("Loading/LoadRun.cs lies in no layer: add its folder to SourceLayers.Layers.", Assert.Single(sources.FilesOutsideLayers()));
        Assert.Equal(
            [
                $"{FileReaderPath} declares FileReader in namespace FastLoad.Engine; the FileSystem layer's types are declared in FastLoad.FileSystem or FastLoad.",
                "FileSystem/Reading/Outside.cs declares Outside in the global namespace; the FileSystem layer's types are declared in FastLoad.FileSystem or FastLoad.",
            ],
            sources.TypesInAnotherLayersNamespace());
    }

    [Fact]
    public void TypesSpreadOverLayers_PartialTypeInTwoLayers_IsReported()
    {
        var sources = Sources(
        [
            ("Engine/Run/LoadRun.cs", "namespace FastLoad;\n\ninternal sealed partial class LoadRun { }"),
            ("FileSystem/Reading/LoadRun.Reading.cs", "namespace FastLoad;\n\ninternal sealed partial class LoadRun { }"),
        ]);

        Assert.Equal(
            "FastLoad.LoadRun is declared in Engine/Run/LoadRun.cs (Engine layer), FileSystem/Reading/LoadRun.Reading.cs (FileSystem layer); a type's parts lie in one layer.",
            Assert.Single(sources.TypesSpreadOverLayers()));
    }

    [Fact]
    public void UnresolvedNames_NameNothingDeclaresOrACrefToNothing_AreReported()
    {
        var sources = Sources(
        [
            (FileReaderPath, "namespace FastLoad.FileSystem;\n\n/// <summary>For <see cref=\"LoadRun\"/>.</summary>\ninternal static class FileReader { internal static LoadRunner? Runner; }"),
        ]);

        Assert.Collection(
            sources.UnresolvedNames().Order(StringComparer.Ordinal),
            cref => Assert.StartsWith($"{FileReaderPath}(3,29): warning CS1574: XML comment has cref attribute 'LoadRun' that could not be resolved", cref, StringComparison.Ordinal),
            name => Assert.StartsWith($"{FileReaderPath}(4,52): error CS0246: The type or namespace name 'LoadRunner' could not be found", name, StringComparison.Ordinal));
    }

    [Fact]
    public void Sources_Readers_NeverUseTheLoadRun()
    {
        // A reader is given the load's context and the writer side of its delivery channel; the run is its consumer's.
        LayerUse[] uses = [.. Library.Value.UsesOf("Engine/Readers/", "Engine/Run/LoadRun.cs")];

        Assert.True(uses.Length == 0, string.Join(Environment.NewLine, uses.Select(use => $"{use.Path}:{use.Line} uses {use.Symbol}, written '{use.Written}'")));
    }

    [Fact]
    public void UsesOf_ReaderNamingTheRun_IsReportedWithItsLineAndSymbol()
    {
        var sources = Sources(
        [
            ("Engine/Run/LoadRun.cs", "namespace FastLoad.Engine;\n\ninternal sealed class LoadRun { internal void Fail() { } }"),
            ("Engine/Readers/RingReader.cs", "namespace FastLoad.Engine;\n\ninternal sealed class RingReader\n{\n    internal static void Stop(LoadRun run) => run.Fail();\n}"),
            ("Engine/Run/LoadContext.cs", "namespace FastLoad.Engine;\n\ninternal sealed class LoadContext { internal LoadRun? Run; }"),
        ]);

        Assert.Empty(sources.UnresolvedNames());
        Assert.Equal(
            [(5, "FastLoad.Engine.LoadRun", "LoadRun"), (5, "FastLoad.Engine.LoadRun.Fail()", "run.Fail")],
            sources.UsesOf("Engine/Readers/", "Engine/Run/LoadRun.cs").Select(use => (use.Line, use.Symbol, use.Written)));
    }

    [Fact]
    public void CodeLeftOut_UseUnderAnIf_IsReportedAndNotBound()
    {
        var sources = Sources(
        [
            (FileReaderPath, "namespace FastLoad.FileSystem;\n\n#if DEBUG\ninternal static class LayerProbe { internal static Type T => typeof(FastLoad.FileLoader); }\n#endif\ninternal static class FileReader { }"),
        ]);

        Assert.Equal(
            $"{FileReaderPath}:4 is left out by an #if, where no layer rule sees it; guard platform code with OperatingSystem.IsLinux() and the like.",
            Assert.Single(sources.CodeLeftOut()));
        Assert.Empty(sources.UnresolvedNames());
    }

    [Fact]
    public void Cycles_ThreeLayersInACircle_AreReportedOnceWithAFileForEachStep()
    {
        var sources = Sources(
        [
            ("FileSystem/Memory/FileContents.cs", "namespace FastLoad.FileSystem;\n\ninternal abstract class FileContents { public FileLoader? Owner; }"),
            ("Engine/LoadedFile.cs", "namespace FastLoad;\n\npublic sealed class LoadedFile { internal FileSystem.FileContents? Contents; }"),
            ("FileLoader.cs", "namespace FastLoad;\n\npublic sealed class FileLoader { public LoadedFile? Last; }"),
        ]);

        string cycle = Assert.Single(sources.Cycles());

        Assert.Equal("Engine -> FileSystem (Engine/LoadedFile.cs) -> front door (FileSystem/Memory/FileContents.cs) -> Engine (FileLoader.cs)", cycle);
    }

    /// <summary><paramref name="fileReader"/> as the file system's FileReader.cs, beside a front door that uses it.</summary>
    private static SourceLayers FileReaderBesideFrontDoor(string fileReader) => Sources(
    [
        (FileReaderPath, fileReader),
        ("FileLoader.cs", "namespace FastLoad;\n\npublic sealed class FileLoader\n{\n    public static int Count() => 0;\n\n"
            + "    internal static Type Reader => typeof(FileSystem.FileReader);\n}\n\n"
            + "[AttributeUsage(AttributeTargets.All)]\npublic sealed class FrontDoorAttribute : Attribute;\n"),
    ]);

    /// <summary><paramref name="files"/> compiled with the SDK's global usings and <paramref name="generated"/>.</summary>
    private static SourceLayers Sources((string Path, string Text)[] files, params (string Path, string Text)[] generated) =>
        new(files, [("obj/FastLoad.GlobalUsings.g.cs", SourceText.From(ImplicitUsings)), .. generated.Select(file => (file.Path, SourceText.From(file.Text)))]);
}
