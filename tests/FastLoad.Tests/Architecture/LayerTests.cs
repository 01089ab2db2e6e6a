namespace FastLoad.Tests.Architecture;

/// <summary>
/// The layers of src/FastLoad point one way: FileSystem -> Engine -> the front door (FileLoader.cs) -> Packing and
/// DependencyInjection -> FileProviders (docs/architecture.md). Checked on the sources as text, so that a use in the
/// wrong direction fails here, naming the file, before anyone has to find the cycle by reading.
/// </summary>
public class LayerTests
{
    private static readonly Lazy<SourceLayers> Library = new(() => SourceLayers.Read(SourceLayers.FindRepositoryRoot()));

    [Fact]
    public void Sources_EveryFile_LiesInALayerAndDeclaresItsNamespace()
    {
        Assert.True(Library.Value.FileCount > 50, $"Only {Library.Value.FileCount} files were found under src/FastLoad.");

        string[] problems = [.. Library.Value.FilesOutsideLayers(), .. Library.Value.FilesInAnotherLayersNamespace()];

        Assert.True(problems.Length == 0, string.Join(Environment.NewLine, problems));
    }

    [Fact]
    public void Sources_NoFile_UsesATypeOfALayerAboveItsOwn()
    {
        string[] violations = [.. Library.Value.UpwardUses()];

        Assert.True(violations.Length == 0, string.Join(Environment.NewLine, violations));
    }

    [Fact]
    public void Sources_TopLevelFolders_DependOnEachOtherInNoCycle()
    {
        string[] cycles = [.. Library.Value.Cycles()];

        Assert.True(cycles.Length == 0, "Layers that use each other: " + string.Join(Environment.NewLine, cycles));
    }

    // The checker itself, on sources made up for it: each rule must be able to fail.

    [Fact]
    public void UpwardUses_FileSystemFileNamingLoadRun_NamesTheFileTheTypeAndBothLayers()
    {
        SourceLayers sources = FileReaderBesideLoadRun("internal static class FileReader\n{\n    public static void Read(LoadRun run) { }\n}\n");

        string violation = Assert.Single(sources.UpwardUses());

        Assert.Contains("FileSystem/Reading/FileReader.cs", violation, StringComparison.Ordinal);
        Assert.Contains("LoadRun", violation, StringComparison.Ordinal);
        Assert.Contains("(FileSystem layer)", violation, StringComparison.Ordinal);
        Assert.Contains("of the Engine layer", violation, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/// <summary>Read by <see cref=\"LoadRun.MoveNextAsync\"/>.</summary>\ninternal static class FileReader { }")]
    [InlineData("using FastLoad.Engine;\n\ninternal static class FileReader { }")]
    [InlineData("internal static class FileReader { private static object? s_run = typeof(FastLoad.Engine.Other); }")]
    [InlineData("internal static class FileReader { private static string S(int n) => $\"{n} {nameof(LoadRun)}\"; }")]
    [InlineData("[SomeAttribute]\ninternal sealed class FileReader : LoadRun { }")]
    public void UpwardUses_UseInCrefUsingQualifiedNameOrInterpolationHole_IsFound(string fileReader) =>
        Assert.NotEmpty(FileReaderBesideLoadRun(fileReader).UpwardUses());

    [Theory]
    [InlineData("// Feeds LoadRun.\ninternal static class FileReader { }")]
    [InlineData("/* LoadRun */ internal static class FileReader { }")]
    [InlineData("internal static class FileReader { private const string S = \"LoadRun\"; private const char C = '\"'; }")]
    [InlineData("internal static class FileReader { private const string S = @\"a \"\"LoadRun\"\"\"; }")]
    [InlineData("internal static class FileReader { private static string S(int n) => $\"{n:N0} LoadRun {{LoadRun}}\"; }")]
    [InlineData("internal static class FileReader { private const string S = \"\"\"\n    LoadRun \"quoted\"\n    \"\"\"; }")]
    [InlineData("/// <summary>Not a cref: <c>LoadRun</c>.</summary>\ninternal static class FileReader { }")]
    public void UpwardUses_NameInCommentOrString_IsNoUse(string fileReader) =>
        Assert.Empty(FileReaderBesideLoadRun(fileReader).UpwardUses());

    [Fact]
    public void UpwardUses_SiblingLayers_MayNotUseEachOther()
    {
        var sources = new SourceLayers(
        [
            ("Packing/PackReader.cs", "namespace FastLoad;\n\npublic sealed class PackReader { }"),
            ("DependencyInjection/Extensions.cs", "namespace Microsoft.Extensions.DependencyInjection;\n\npublic static class Extensions { public static PackReader? Pack; }"),
        ]);

        string violation = Assert.Single(sources.UpwardUses());

        Assert.Contains("DependencyInjection/Extensions.cs (DependencyInjection layer) uses PackReader of the Packing layer", violation, StringComparison.Ordinal);
    }

    [Fact]
    public void UpwardUses_NestedTypeOfTheSameNameInTheFilesOwnLayer_IsTakenToBeThatOne()
    {
        var sources = new SourceLayers(
        [
            ("FileSystem/Storage/Cache.cs", "namespace FastLoad.FileSystem;\n\ninternal sealed class Cache\n{\n    private sealed record Entry(int Value);\n\n    private Entry? _entry;\n}\n"),
            ("Engine/Run/Queue.cs", "namespace FastLoad.Engine;\n\ninternal sealed class Queue\n{\n    private sealed record Entry(string Value);\n}\n"),
        ]);

        Assert.Empty(sources.UpwardUses());
    }

    [Fact]
    public void Sources_FileInAnUnknownFolderOrAnotherLayersNamespace_IsReported()
    {
        var sources = new SourceLayers(
        [
            ("Loading/LoadRun.cs", "namespace FastLoad.Loading;\n\ninternal sealed class LoadRun { }"),
            ("FileSystem/Reading/FileReader.cs", "namespace FastLoad.Engine;\n\ninternal static class FileReader { }"),
        ]);

        Assert.Contains("Loading/LoadRun.cs lies in no layer", Assert.Single(sources.FilesOutsideLayers()), StringComparison.Ordinal);
        Assert.Contains("FileSystem/Reading/FileReader.cs declares namespace FastLoad.Engine", Assert.Single(sources.FilesInAnotherLayersNamespace()), StringComparison.Ordinal);
    }

    [Fact]
    public void Cycles_TwoLayersUsingEachOther_AreReportedOnceWithAFileForEachDirection()
    {
        var sources = new SourceLayers(
        [
            ("FileSystem/Memory/FileContents.cs", "namespace FastLoad.FileSystem;\n\ninternal abstract class FileContents { public LoadedFile? Owner; }"),
            ("Engine/LoadedFile.cs", "namespace FastLoad;\n\npublic sealed class LoadedFile { internal FileSystem.FileContents? Contents; }"),
        ]);

        string cycle = Assert.Single(sources.Cycles());

        Assert.Equal("Engine -> FileSystem (Engine/LoadedFile.cs) -> Engine (FileSystem/Memory/FileContents.cs)", cycle);
    }

    /// <summary>A FileSystem file with <paramref name="fileReader"/> after its namespace, beside the Engine's LoadRun and Other.</summary>
    private static SourceLayers FileReaderBesideLoadRun(string fileReader) => new(
    [
        ("FileSystem/Reading/FileReader.cs", "namespace FastLoad.FileSystem;\n\n" + fileReader),
        ("Engine/Run/LoadRun.cs", "namespace FastLoad.Engine;\n\ninternal sealed class LoadRun { }\n\ninternal sealed class Other { }\n"),
    ]);
}
