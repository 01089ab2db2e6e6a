using System.IO.MemoryMappedFiles;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>What a start records: the pages it mapped, the files FastLoad loaded, bounded and canonical.</summary>
public sealed class StartupRecordingTests : PrefetchTestBase
{
    [LinuxFact]
    public async Task End_FirstStart_RecordsTheLoadedFilesWholeAndOnlyTheTouchedPagesOfAMappedFile()
    {
        string loaded = DataFile("config.json", 10_000);
        string streamed = DataFile("big.bin", 3 * MiB);
        string mapped = DataFile("mapped.bin", 16 * MiB);
        string later = DataFile("later.json", 100);

        StartupPrefetchSummary summary;
        using (var map = MemoryMappedFile.CreateFromFile(mapped, FileMode.Open, null, 0, MemoryMappedFileAccess.Read))
        using (MemoryMappedViewAccessor view = map.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read))
        {
            summary = await StartAsync(beforeEnd: () =>
            {
                _ = Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([loaded])).GetAwaiter().GetResult();
                ReadAllChunks(streamed);
                _ = view.ReadByte(8 * MiB);
            });
        }

        await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([later])); // After the end: not part of the start.
        Assert.Equal(StartupManifestStatus.NotFound, summary.ManifestStatus);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
        Assert.True(summary.ManifestWritten);
        StartupManifest manifest = StartupManifest.Read(ManifestBesideApp);
        Assert.Equal(Build, manifest.BuildKey);
        Assert.Equal([streamed, loaded, mapped], manifest.Files.Select(file => file.Path)); // big.bin, config.json, mapped.bin: ordinal order
        Assert.Equal([new StartupManifestRange(0, 10_000)], manifest.Files.Single(file => file.Path == loaded).Ranges);
        Assert.Equal([new StartupManifestRange(0, 3 * MiB)], manifest.Files.Single(file => file.Path == streamed).Ranges);

        // The page read, with what the kernel mapped beside it (its fault-around window, or the whole large folio the
        // page is in: 2 MiB on this project's ext4); not the rest of the mapping.
        StartupManifestFile page = manifest.Files.Single(file => file.Path == mapped);
        Assert.Equal(16 * MiB, page.Length);
        Assert.Contains(page.Ranges, range => range.Offset <= 8 * MiB && range.End > 8 * MiB);
        Assert.DoesNotContain(page.Ranges, range => range.Offset < 4 * MiB || range.End > 12 * MiB);
        Assert.Equal(summary.RecordedByteCount, manifest.ByteCount);
        Assert.Equal(3, summary.RecordedFileCount);
    }

    [LinuxFact]
    public async Task End_Recorded_PlacesFilesInTheOrderTheStartFirstUsedThem()
    {
        // The host and the runtime's core by name, in their load order whatever their paths; a shared library loaded
        // later, after them; assemblies in the order the runtime loaded them (the second loaded has the first path),
        // even those loaded before the library; files FastLoad read, by path; a file only mapped, none.
        string host = DataFile("dotnet", 10_000);
        string coreClr = DataFile("libcoreclr.so", 10_000);
        string coreLib = DataFile("System.Private.CoreLib.dll", 10_000);
        string other = DataFile("a-native.so", 10_000);
        string loadedFirst = CopyToData(typeof(Microsoft.Extensions.Primitives.StringValues).Assembly.Location, "c-loaded-first.dll");
        string loadedSecond = CopyToData(typeof(Microsoft.Extensions.Options.Options).Assembly.Location, "b-loaded-second.dll");
        string library = CopyToData(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "libSystem.IO.Compression.Native.so"), "d-library.so");
        nint libraryHandle = 0;
        string[] read = [DataFile("z-read.json", 100), DataFile("y-read.json", 100)];
        var contexts = new List<AssemblyLoadContext>();
        var maps = new List<MemoryMappedFile>();
        var views = new List<MemoryMappedViewAccessor>();
        try
        {
            foreach (string file in new[] { host, coreClr, coreLib, other })
            {
                maps.Add(MemoryMappedFile.CreateFromFile(file, FileMode.Open, null, 0, MemoryMappedFileAccess.Read));
                views.Add(maps[^1].CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read));
                _ = views[^1].ReadByte(0);
            }

            await StartAsync(beforeEnd: () =>
            {
                foreach (string assembly in new[] { loadedFirst, loadedSecond })
                {
                    contexts.Add(new AssemblyLoadContext(assembly, isCollectible: true));
                    _ = contexts[^1].LoadFromAssemblyPath(assembly).GetTypes();
                }

                libraryHandle = NativeLibrary.Load(library);

                foreach (string file in read)
                {
                    Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([file])).GetAwaiter().GetResult();
                }
            });
        }
        finally
        {
            views.ForEach(view => view.Dispose());
            maps.ForEach(map => map.Dispose());
            contexts.ForEach(context => context.Unload());
            if (libraryHandle != 0)
            {
                NativeLibrary.Free(libraryHandle);
            }
        }

        StartupManifest manifest = StartupManifest.Read(ManifestBesideApp);
        Assert.Equal(
            [(host, 1), (coreClr, 2), (coreLib, 3), (library, 4), (loadedFirst, 5), (loadedSecond, 6), (read[1], 7), (read[0], 8), (other, 0)],
            manifest.Files.Select(file => (file.Path, file.FirstUse)).OrderBy(file => file.FirstUse == 0).ThenBy(file => file.FirstUse));
    }

    [LinuxFact]
    public async Task End_SameStartTwice_WritesTheManifestOnceAndTheSameBytes()
    {
        string[] files = [DataFile("b.json", 5000), DataFile("a.json", 7000), DataFile("c.json", 1)];
        Action load = () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths(files)).GetAwaiter().GetResult();

        StartupPrefetchSummary first = await StartAsync(beforeEnd: load);
        byte[] written = File.ReadAllBytes(ManifestBesideApp);
        DateTime writtenAt = File.GetLastWriteTimeUtc(ManifestBesideApp);
        StartupPrefetchSummary second = await StartAsync(beforeEnd: load);

        Assert.True(first.ManifestWritten);
        Assert.Equal(StartupManifestStatus.Replayed, second.ManifestStatus);
        Assert.False(second.ManifestWritten);
        Assert.Equal(written, File.ReadAllBytes(ManifestBesideApp));
        Assert.Equal(writtenAt, File.GetLastWriteTimeUtc(ManifestBesideApp));
        Assert.Equal(ManifestBesideApp, second.RecordedPath);
    }

    [LinuxFact]
    public async Task End_MoreThanTheBounds_KeepsTheFirstFilesInPathOrderUpToTheBytes()
    {
        string[] files = [.. Enumerable.Range(0, 6).Select(i => DataFile($"f{i}.bin", 10_000))];

        StartupPrefetchSummary summary = await StartAsync(
            new StartupPrefetchOptions { MaxManifestFiles = 4, MaxManifestBytes = 35_000 },
            beforeEnd: () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths(files)).GetAwaiter().GetResult());

        StartupManifest manifest = StartupManifest.Read(ManifestBesideApp);
        Assert.Equal(files[..4], manifest.Files.Select(file => file.Path));
        Assert.Equal(35_000, manifest.ByteCount);
        Assert.Equal([new StartupManifestRange(0, 5_000)], manifest.Files[3].Ranges);
        Assert.Equal(4, summary.RecordedFileCount);
    }

    [LinuxFact]
    public async Task End_MoreFilesLoadedThanTheBound_KeepsTheFirstInPathOrderWhateverTheLoadOrder()
    {
        string[] files = [.. Enumerable.Range(0, 4).Select(i => DataFile($"f{i}.bin", 1_000))];

        // One load per file, the last path first: the manifest still keeps the first paths, not the first loaded.
        StartupPrefetchSummary summary = await StartAsync(
            new StartupPrefetchOptions { MaxManifestFiles = 2 },
            beforeEnd: () =>
            {
                foreach (string file in files.Reverse())
                {
                    Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([file])).GetAwaiter().GetResult();
                }
            });

        Assert.Equal(files[..2], StartupManifest.Read(ManifestBesideApp).Files.Select(file => file.Path));
        Assert.Equal(2, summary.RecordedFileCount);
    }

    [LinuxFact]
    public async Task End_AdditionalFiles_AreRecordedWhole()
    {
        string extra = DataFile("templates.bin", 123_456);

        await StartAsync(new StartupPrefetchOptions { AdditionalFiles = { extra } });

        StartupManifestFile file = Assert.Single(StartupManifest.Read(ManifestBesideApp).Files);
        Assert.Equal(extra, file.Path);
        Assert.Equal([new StartupManifestRange(0, 123_456)], file.Ranges);
    }

    [LinuxTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task End_WithARecordDelay_CountsWhatIsReadUntilDisposeRecordsAtOnce(bool warm)
    {
        string before = DataFile("before.json", 100);
        string after = DataFile("after.json", 200);
        using var replayed = new ManualResetEventSlim();
        StartupPrefetch prefetch = Begin(
            new StartupPrefetchOptions { RecordDelay = TimeSpan.FromMinutes(10) }, Hooks(afterReplay: replayed.Set, diskReadBytes: warm ? 0 : null));
        Assert.True(warm || replayed.Wait(TimeSpan.FromSeconds(30))); // A warm start's thread starts only at the end.
        await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([before]));

        prefetch.End();
        await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([after])); // A first request, after the start ended.
        bool recordedEarly = prefetch.Completion.IsCompleted;
        prefetch.Dispose();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.False(recordedEarly);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
        Assert.Equal([after, before], StartupManifest.Read(ManifestBesideApp).Files.Select(file => file.Path));
    }

    [LinuxFact]
    public async Task Dispose_WithoutEnd_RecordsNothing()
    {
        string loaded = DataFile("a.json", 100);
        using var replayed = new ManualResetEventSlim();
        StartupPrefetch prefetch = Begin(hooks: Hooks(afterReplay: replayed.Set));
        Assert.True(replayed.Wait(TimeSpan.FromSeconds(30)));
        await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([loaded]));

        prefetch.Dispose();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Null(summary.RecordedPath);
        Assert.False(File.Exists(ManifestBesideApp));
    }

    [LinuxFact]
    public async Task End_RecordFalse_ReplaysButNeverWrites()
    {
        string a = DataFile("a.bin", MiB);
        byte[] manifest = Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, 4096)])));

        StartupPrefetchSummary summary = await StartAsync(
            new StartupPrefetchOptions { Record = false },
            beforeEnd: () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a])).GetAwaiter().GetResult());

        Assert.Equal(StartupManifestStatus.Replayed, summary.ManifestStatus);
        Assert.Null(summary.RecordedPath);
        Assert.Equal(manifest, File.ReadAllBytes(ManifestBesideApp));
    }

    private string CopyToData(string source, string name)
    {
        string path = Path.Combine(DataDirectory, name);
        File.Copy(source, path);
        return path;
    }

    private static void ReadAllChunks(string path)
    {
        IAsyncEnumerable<FileChunk> chunks = new FileLoader().ReadChunksAsync(path, 1024 * 1024);
        foreach (FileChunk chunk in chunks.ToBlockingEnumerable())
        {
            chunk.Dispose();
        }
    }
}
