// IntegrationTiming: start-up through IFileProvider, each measurement in a fresh process with the data evicted from the
// page cache (the runtime's own files stay cached), medians of alternating runs.
//
//   1. The PackedWebAssets app serving a page with 200 assets from its loose folder and from a pack: time from
//      starting the process until the page is answered, and until the page and all its assets are.
//   2. 500 JSON configuration files read by AddJsonFile through PhysicalFileProvider and through PreloadedFileProvider
//      (one FastLoad load): time from Main until the configuration is built, and the whole process.
//
//   dotnet run -c Release --project samples/IntegrationTiming -- [runs=9] [assets=200] [configs=500]

using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using FastLoad;
using FastLoad.Shared;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;

if (args is ["config", string childMode, string childFolder])
{
    return ConfigChild(childMode, childFolder);
}

int runs = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 9;
int assets = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 200;
int configs = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 500;
string data = Path.Combine(Path.GetTempPath(), "fastload-integration-timing");
if (Directory.Exists(data))
{
    Directory.Delete(data, recursive: true);
}

string site = Path.Combine(data, "wwwroot");
string[] assetNames = WriteSite(site, assets);
string sitePack = Path.Combine(data, "site.fpk");
string settingsPack = Path.Combine(data, "settings.fpk");
await PackWriter.CreateAsync(sitePack, site);

// Random access decodes a whole block per asset: smaller blocks decode less for each request.
string smallBlockPack = Path.Combine(data, "site-64k.fpk");
await PackWriter.CreateAsync(smallBlockPack, site, new PackOptions { BlockSize = 64 * 1024 });
Directory.CreateDirectory(Path.Combine(data, "settings"));
File.WriteAllText(Path.Combine(data, "settings", "site.json"), """{ "Site": { "Title": "Timing" } }""");
await PackWriter.CreateAsync(settingsPack, Path.Combine(data, "settings"));
string configFolder = Path.Combine(data, "config");
WriteConfigs(configFolder, configs);

string app = Path.Combine(RepositoryRoot(), "samples", "PackedWebAssets", "bin", Release() ? "Release" : "Debug", "net10.0", "PackedWebAssets.dll");
Console.WriteLine($"{Environment.ProcessorCount} cores, {runs} runs each, alternating; page cache evicted before each run: {PageCache.IsEvictionSupported}");

// 1. First page with its assets, loose folder against pack.
var page = new Dictionary<string, (List<double> First, List<double> Complete)> { ["loose"] = ([], []), ["pack"] = ([], []), ["pack-64k"] = ([], []) };
string[] siteFiles = Directory.GetFiles(site, "*", SearchOption.AllDirectories);
for (int run = 0; run < runs; run++)
{
    string[] order = ["loose", "pack", "pack-64k"];
    foreach (string mode in order.Skip(run % 3).Concat(order.Take(run % 3)))
    {
        Evict(siteFiles.Append(sitePack).Append(smallBlockPack).Append(settingsPack));
        string[] siteArgs = mode switch { "loose" => ["--loose", site], "pack" => ["--pack", sitePack], _ => ["--pack", smallBlockPack] };
        (double first, double complete) = await FirstPageAsync(app, siteArgs, settingsPack, assetNames);
        page[mode].First.Add(first);
        page[mode].Complete.Add(complete);
    }
}

Console.WriteLine($"\nFirst page with {assets} assets (ms from process start; median [min-max] of {runs}):");
foreach ((string mode, var times) in page)
{
    Console.WriteLine($"  {mode,-8} page answered {Describe(times.First)}   page and assets {Describe(times.Complete)}");
}

Console.WriteLine($"  pack / loose, page and assets: {Median(page["pack"].Complete) / Median(page["loose"].Complete):F2}x (1 MiB blocks), {Median(page["pack-64k"].Complete) / Median(page["loose"].Complete):F2}x (64 KiB blocks)");

// 2. Configuration files through a provider.
var config = new Dictionary<string, (List<double> InProcess, List<double> Process, List<double> Again)> { ["physical"] = ([], [], []), ["preloaded"] = ([], [], []) };
string[] configFiles = Directory.GetFiles(configFolder);
string self = typeof(Program).Assembly.Location;
for (int run = 0; run < runs; run++)
{
    foreach (string mode in run % 2 == 0 ? new[] { "physical", "preloaded" } : ["preloaded", "physical"])
    {
        Evict(configFiles);
        var clock = Stopwatch.StartNew();
        string output = RunChild(self, "config", mode, configFolder);
        config[mode].Process.Add(clock.Elapsed.TotalMilliseconds);
        string[] times = output.Trim().Split(' ');
        config[mode].InProcess.Add(double.Parse(times[0], CultureInfo.InvariantCulture));
        config[mode].Again.Add(double.Parse(times[1], CultureInfo.InvariantCulture));
    }
}

Console.WriteLine($"\n{configs} JSON files by AddJsonFile (ms; median [min-max] of {runs}):");
foreach ((string mode, var times) in config)
{
    Console.WriteLine($"  {mode,-9} Main to configuration built {Describe(times.InProcess)}   whole process {Describe(times.Process)}   built again {Describe(times.Again)}");
}

Console.WriteLine($"  preloaded / physical, Main to configuration built: {Median(config["preloaded"].InProcess) / Median(config["physical"].InProcess):F2}x; built again: {Median(config["preloaded"].Again) / Median(config["physical"].Again):F2}x");
Directory.Delete(data, recursive: true);
return 0;

static int ConfigChild(string mode, string folder)
{
    var clock = Stopwatch.StartNew();
    IFileProvider provider = mode == "preloaded"
        ? PreloadedFileProvider.LoadAsync(folder).GetAwaiter().GetResult()
        : new PhysicalFileProvider(folder, ExclusionFilters.None);
    double provided = clock.Elapsed.TotalMilliseconds;
    var builder = new ConfigurationBuilder();
    foreach (IFileInfo file in provider.GetDirectoryContents("").OrderBy(f => f.Name, StringComparer.Ordinal))
    {
        builder.AddJsonFile(provider, file.Name, optional: false, reloadOnChange: false);
    }

    IConfigurationRoot configuration = builder.Build();
    double built = clock.Elapsed.TotalMilliseconds;
    if (configuration["Service0:Name"] is null)
    {
        throw new InvalidOperationException("The configuration is missing its values.");
    }

    // Read a second time, as a reload or a template cache miss would: the preloaded provider's reason to be.
    clock.Restart();
    builder.Build();
    double again = clock.Elapsed.TotalMilliseconds;
    Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{built:F2} {again:F2}"));
    Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{mode}: provider {provided:F1} ms, configuration {built - provided:F1} ms"));
    return 0;
}

static async Task<(double First, double Complete)> FirstPageAsync(string app, string[] site, string settingsPack, string[] assetNames)
{
    int port = FreePort();
    var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
    foreach (string arg in (string[])[app, .. site, "--settings", settingsPack, "--urls", $"http://127.0.0.1:{port}", "--Logging:LogLevel:Default=Warning"])
    {
        start.ArgumentList.Add(arg);
    }

    using var client = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = 6 }) { BaseAddress = new Uri($"http://127.0.0.1:{port}/") };
    var clock = Stopwatch.StartNew();
    using Process process = Process.Start(start)!;
    try
    {
        string html;
        while (true)
        {
            try
            {
                html = await client.GetStringAsync(new Uri("/", UriKind.Relative));
                break;
            }
            catch (HttpRequestException) when (!process.HasExited && clock.Elapsed < TimeSpan.FromSeconds(60))
            {
                await Task.Delay(2);
            }
        }

        double first = clock.Elapsed.TotalMilliseconds;
        if (!html.Contains(assetNames[^1], StringComparison.Ordinal))
        {
            throw new InvalidOperationException("The page does not list its assets.");
        }

        // As a browser does: six connections.
        await Parallel.ForEachAsync(assetNames, new ParallelOptions { MaxDegreeOfParallelism = 6 }, async (name, ct) =>
        {
            byte[] body = await client.GetByteArrayAsync(new Uri(name, UriKind.Relative), ct);
            if (body.Length == 0)
            {
                throw new InvalidOperationException($"{name} came back empty.");
            }
        });
        return (first, clock.Elapsed.TotalMilliseconds);
    }
    finally
    {
        process.Kill(entireProcessTree: true);
        await process.WaitForExitAsync();
    }
}

static string RunChild(string self, params string[] args)
{
    var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true };
    start.ArgumentList.Add(self);
    foreach (string arg in args)
    {
        start.ArgumentList.Add(arg);
    }

    using Process process = Process.Start(start)!;
    string output = process.StandardOutput.ReadToEnd();
    process.WaitForExit();
    return process.ExitCode == 0 ? output : throw new InvalidOperationException($"The child failed: {output}");
}

// A page of HTML listing every asset, and assets of 1-48 KiB: stylesheets, scripts, images, fonts.
static string[] WriteSite(string site, int count)
{
    string[] kinds = ["css", "js", "png", "svg", "woff2"];
    var random = new Random(42);
    var names = new string[count];
    var html = new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>200 assets</title>\n");
    for (int i = 0; i < count; i++)
    {
        string kind = kinds[i % kinds.Length];
        names[i] = $"{kind}/asset{i:D3}.{kind}";
        byte[] bytes = new byte[random.Next(1024, 48 * 1024)];
        if (kind is "png" or "woff2")
        {
            random.NextBytes(bytes);
        }
        else
        {
            for (int j = 0; j < bytes.Length; j++)
            {
                bytes[j] = (byte)"abcdefghij {};\n"[random.Next(15)];
            }
        }

        string path = Path.Combine(site, names[i]);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, bytes);
        html.Append(kind switch
        {
            "css" => $"<link rel=\"stylesheet\" href=\"{names[i]}\">\n",
            "js" => $"<script src=\"{names[i]}\"></script>\n",
            _ => $"<img src=\"{names[i]}\">\n",
        });
    }

    File.WriteAllText(Path.Combine(site, "index.html"), html.Append("</head><body></body></html>").ToString());
    return names;
}

// Service settings of 0.5-4 KiB each, as a folder of per-service configuration files.
static void WriteConfigs(string folder, int count)
{
    Directory.CreateDirectory(folder);
    var random = new Random(7);
    for (int i = 0; i < count; i++)
    {
        var json = new StringBuilder($"{{ \"Service{i}\": {{ \"Name\": \"service-{i}\", \"Settings\": {{");
        int keys = random.Next(10, 90);
        for (int k = 0; k < keys; k++)
        {
            json.Append(CultureInfo.InvariantCulture, $"{(k > 0 ? "," : string.Empty)} \"Key{k}\": \"{random.Next():x8}\"");
        }

        File.WriteAllText(Path.Combine(folder, $"service{i:D3}.json"), json.Append(" } } }").ToString());
    }
}

static void Evict(IEnumerable<string> paths)
{
    if (PageCache.IsEvictionSupported)
    {
        foreach (string path in paths)
        {
            PageCache.Evict(path);
        }
    }
}

static int FreePort()
{
    using var listener = new TcpListener(IPAddress.Loopback, 0);
    listener.Start();
    return ((IPEndPoint)listener.LocalEndpoint).Port;
}

static double Median(List<double> values)
{
    double[] sorted = [.. values.Order()];
    return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
}

static string Describe(List<double> values) =>
    string.Create(CultureInfo.InvariantCulture, $"{Median(values),7:F1} [{values.Min():F1}-{values.Max():F1}]");

static bool Release() => typeof(Program).Assembly.Location.Contains($"{Path.DirectorySeparatorChar}Release{Path.DirectorySeparatorChar}", StringComparison.Ordinal);

static string RepositoryRoot()
{
    for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
    {
        if (File.Exists(Path.Combine(directory.FullName, "FastLoad.sln")))
        {
            return directory.FullName;
        }
    }

    throw new DirectoryNotFoundException("FastLoad.sln not found above the harness.");
}
