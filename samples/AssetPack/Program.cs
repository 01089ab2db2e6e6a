// AssetPack: at build time, pack a folder of many small assets into one file; at start-up, load them all from the
// pack with a few large sequential reads, decoded on all cores; and read one asset on its own.
//
//   dotnet run --project samples/AssetPack [assets-folder]
// Without a folder, it makes 2,000 small text-like assets in a temporary folder first.

using System.Diagnostics;
using FastLoad;

string work = Path.Combine(Path.GetTempPath(), $"fastload-assetpack-{Environment.ProcessId}");
string assets = args.Length > 0 ? args[0] : MakeAssets(Path.Combine(work, "assets"), count: 2_000);
string packPath = Path.Combine(work, "assets.fpk");
Directory.CreateDirectory(work);
try
{
    // 1. Build step: one pack file, LZ4 blocks of 1 MiB, an XXH64 per entry.
    var watch = Stopwatch.StartNew();
    await PackWriter.CreateAsync(packPath, assets);
    long packMilliseconds = watch.ElapsedMilliseconds;
    long looseBytes = FileSet.FromDirectory(assets).EnumeratePaths().Sum(path => new FileInfo(path).Length);
    Console.WriteLine($"Packed {assets} ({looseBytes:N0} bytes) into {packPath} ({new FileInfo(packPath).Length:N0} bytes) in {packMilliseconds} ms.");

    // 2. Start-up: every entry, streamed as it is decoded; each buffer goes back to the pool on Dispose.
    watch.Restart();
    await using PackReader pack = await PackReader.OpenAsync(packPath); // header, footer and index checked here
    int count = 0;
    long bytes = 0;
    await foreach (LoadedFile entry in pack.LoadAllAsync())
    {
        using (entry)
        {
            count++;
            bytes += entry.Length;
        }
    }

    Console.WriteLine($"Loaded {count:N0} entries ({bytes:N0} bytes) from the pack in {watch.ElapsedMilliseconds} ms.");

    // 3. Random access: one entry by its relative path.
    string first = pack.Entries[0].Name;
    ReadOnlyMemory<byte> one = await pack.ReadEntryAsync(first);
    Console.WriteLine($"Read '{first}' alone: {one.Length:N0} bytes.");
}
finally
{
    Directory.Delete(work, recursive: true);
}

static string MakeAssets(string folder, int count)
{
    string[] words = ["texture", "shader", "level", "enemy", "spawn", "light", "sound", "mesh", "atlas", "ui"];
    var random = new Random(1);
    for (int i = 0; i < count; i++)
    {
        string directory = Path.Combine(folder, words[i % words.Length]);
        Directory.CreateDirectory(directory);
        var text = new System.Text.StringBuilder();
        for (int line = random.Next(20, 400); line > 0; line--)
        {
            text.Append($"{{\"{words[random.Next(words.Length)]}\": {random.Next(1000)}, \"id\": \"{words[random.Next(words.Length)]}-{i}\"}}\n");
        }

        File.WriteAllText(Path.Combine(directory, $"asset{i:D5}.json"), text.ToString());
    }

    return folder;
}
