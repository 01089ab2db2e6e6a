// StartupConfig: an application that, at start-up, loads every file of its config folder through FastLoad,
// parses the JSON ones and keeps the templates, before it starts serving.
//
//   dotnet run --project samples/StartupConfig [config-folder]

using System.Text.Json;
using FastLoad;
using Microsoft.Extensions.Logging;

string configFolder = args.Length > 0 ? args[0] : Path.Combine(AppContext.BaseDirectory, "config");

using ILoggerFactory logging = LoggerFactory.Create(builder => builder.AddSimpleConsole(o => o.SingleLine = true));

// Collect: one broken file is reported, the others still load. Input order: files arrive sorted by path.
var loader = new FileLoader(
    new FileLoaderOptions { ErrorHandling = LoadErrorHandling.Collect, Ordering = LoadOrdering.Input },
    logging);

var settings = new Dictionary<string, JsonDocument>();
var templates = new Dictionary<string, string>();

// The consumer runs while the next files are still being read; each file's buffer goes back to the pool after it.
LoadSummary summary = await loader.LoadAsync(
    FileSet.FromDirectory(configFolder),
    (file, _) =>
    {
        string name = Path.GetRelativePath(configFolder, file.Path);
        if (name.EndsWith(".json", StringComparison.OrdinalIgnoreCase))
        {
            // JsonDocument.Parse copies what it needs, so the pooled buffer can be returned afterwards.
            settings[name] = JsonDocument.Parse(file.Data);
        }
        else
        {
            templates[name] = System.Text.Encoding.UTF8.GetString(file.Data.Span);
        }

        return ValueTask.CompletedTask;
    });

Console.WriteLine($"Loaded {summary.FileCount} files ({summary.ByteCount:N0} bytes) in {summary.Elapsed.TotalMilliseconds:F1} ms, {summary.DegreeOfParallelism} reads at once.");
foreach (var (name, document) in settings)
{
    Console.WriteLine($"  settings  {name}: {document.RootElement.EnumerateObject().Count()} keys");
}

foreach (var (name, text) in templates)
{
    Console.WriteLine($"  template  {name}: {text.Length} characters");
}

foreach (LoadFailure failure in summary.Failures)
{
    Console.WriteLine($"  FAILED    {failure.Exception.Message}");
}

return summary.Failures.Count == 0 ? 0 : 1;
