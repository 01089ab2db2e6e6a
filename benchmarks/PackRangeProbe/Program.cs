// Usage: dotnet run -c Release --project benchmarks/PackRangeProbe -- <pack|folder> [data folder] [requests]
// Writes a 256 MiB file and its pack once (1 MiB blocks), serves the pack (PackFileProvider) or the folder
// (PhysicalFileProvider) as static files on 127.0.0.1, sends <requests> concurrent requests for 100 bytes at 200 MiB,
// checks the bytes and prints the process's resident memory and managed allocations before and after.
using System.Diagnostics;
using System.Net.Http.Headers;
using FastLoad;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.Logging;

string mode = args.Length > 0 ? args[0] : "pack";
string folder = args.Length > 1 ? args[1] : Path.Combine(Path.GetTempPath(), "fastload-range-probe");
int requests = args.Length > 2 ? int.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture) : 8;
const long Offset = 200L * 1024 * 1024;
const int Length = 256 * 1024 * 1024;
string files = Path.Combine(folder, "files");
string file = Path.Combine(files, "large.bin");
string packPath = Path.Combine(folder, "large.fpk");
if (!File.Exists(packPath))
{
    Directory.CreateDirectory(files);
    byte[] data = new byte[Length];
    for (int i = 0; i < data.Length; i += 8)
    {
        BitConverter.TryWriteBytes(data.AsSpan(i), (long)i * 2654435761 % 1_000_003); // compresses about 2:1
    }

    File.WriteAllBytes(file, data);
    await PackWriter.CreateAsync(packPath, files);
    Console.WriteLine("wrote the data; run again to measure in a process that did not write it");
    return;
}

IFileProvider provider = mode == "pack" ? await PackFileProvider.OpenAsync(packPath) : new PhysicalFileProvider(files);
WebApplicationBuilder builder = WebApplication.CreateBuilder();
builder.Logging.ClearProviders();
builder.WebHost.UseUrls("http://127.0.0.1:0");
WebApplication app = builder.Build();
app.UseStaticFiles(new StaticFileOptions { FileProvider = provider, ServeUnknownFileTypes = true });
await app.StartAsync();
string url = app.Urls.First() + "/large.bin";

byte[] expected = new byte[100];
using (FileStream source = File.OpenRead(file))
{
    source.Position = Offset;
    source.ReadExactly(expected);
}

using var client = new HttpClient();
await GetRangeAsync(client, url, 0); // the first request's own costs (code, the server's buffers) out of the way
GC.Collect();
long rssBefore = Status("VmRSS");
long allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
byte[][] bodies = await Task.WhenAll(Enumerable.Range(0, requests).Select(_ => GetRangeAsync(client, url, Offset)));
long allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
foreach (byte[] body in bodies)
{
    if (!body.AsSpan().SequenceEqual(expected))
    {
        throw new InvalidOperationException("a Range response differs from the file");
    }
}

Console.WriteLine(
    $"{mode}: {requests} concurrent Range requests of 100 bytes at 200 MiB of a 256 MiB file: allocated {allocated / 1048576.0:F1} MiB; "
    + $"resident {rssBefore / 1024.0:F0} -> {Status("VmRSS") / 1024.0:F0} MiB, peak {Status("VmHWM") / 1024.0:F0} MiB");
await app.StopAsync();
(provider as IDisposable)?.Dispose();

static async Task<byte[]> GetRangeAsync(HttpClient client, string url, long offset)
{
    using var request = new HttpRequestMessage(HttpMethod.Get, url);
    request.Headers.Range = new RangeHeaderValue(offset, offset + 99);
    using HttpResponseMessage response = await client.SendAsync(request);
    return response.StatusCode == System.Net.HttpStatusCode.PartialContent
        ? await response.Content.ReadAsByteArrayAsync()
        : throw new InvalidOperationException($"status {response.StatusCode}");
}

// KiB, from /proc/self/status.
static long Status(string field) =>
    long.Parse(File.ReadLines("/proc/self/status").First(line => line.StartsWith(field + ":", StringComparison.Ordinal)).Split(' ', StringSplitOptions.RemoveEmptyEntries)[1], System.Globalization.CultureInfo.InvariantCulture);
