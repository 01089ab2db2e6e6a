// StartupConfig: a generic host that, before it starts serving, loads every file of its config folder through
// FastLoad, configured from appsettings.json ("FastLoad" section) and injected like any other service.
//
//   dotnet run --project samples/StartupConfig [config-folder]

using System.Text;
using System.Text.Json;
using FastLoad;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);
builder.Services.AddFastLoad(builder.Configuration.GetSection("FastLoad")); // validated when the host starts
using IHost host = builder.Build();
await host.StartAsync();

string configFolder = args.Length > 0 ? args[0] : Path.Combine(AppContext.BaseDirectory, "config");
var loader = host.Services.GetRequiredService<FileLoader>();
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
            settings[name] = JsonDocument.Parse(file.Sequence); // JsonDocument copies what it keeps; Sequence works for every size
        }
        else
        {
            templates[name] = Encoding.UTF8.GetString(file.Sequence); // a string holds at most 1 GiB of text: throws beyond
        }

        return ValueTask.CompletedTask;
    });

Console.WriteLine($"Loaded {summary.FileCount} files ({summary.ByteCount:N0} bytes) in {summary.Elapsed.TotalMilliseconds:F1} ms, {summary.DegreeOfParallelism} reads at once, from {summary.Storage}.");
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

await host.StopAsync();
return summary.Failures.Count == 0 ? 0 : 1;
