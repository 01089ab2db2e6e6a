using System.Text.Json;
using FastLoad;

string folder = args.Length > 0 ? args[0] : ".";
using var cancel = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) => { e.Cancel = true; cancel.Cancel(); };

var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = 256 * 1024 * 1024 });

// Every file under the folder, each handed over as soon as it is read (many reads at once, within the budget).
await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromDirectory(folder), cancel.Token))
{
    using (file)                                   // the buffer is pooled: Dispose returns it
    {
        // file.Sequence holds the bytes, whatever the size; file.Data, one block, up to 2 GiB.
        Console.WriteLine($"{file.Path}: {file.Length:N0} bytes");
    }
}

// Or hand each file to a consumer that runs while the next files are being read.
LoadSummary summary = await loader.LoadAsync(
    FileSet.FromDirectory(folder, "*.json"),
    (file, cancellationToken) =>
    {
        using JsonDocument json = JsonDocument.Parse(file.Sequence);   // the bytes are valid until this returns
        Console.WriteLine($"{file.Path}: a JSON {json.RootElement.ValueKind}");
        return ValueTask.CompletedTask;
    },
    cancel.Token);
Console.WriteLine($"{summary.FileCount} .json files, {summary.ByteCount:N0} bytes in {summary.Elapsed.TotalMilliseconds:F1} ms");
