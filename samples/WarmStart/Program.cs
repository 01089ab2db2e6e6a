// WarmStart: the ASP.NET Core template (`dotnet new web`) with a start-up manifest. The first start records what it
// read (WarmStart.startup-manifest, beside the app); every later cold start (one that had to read the runtime from the
// disk) reads that back into the page cache in the background while it starts, so a start after a reboot or a deploy
// waits less for the disk. A warm start skips it, and pays next to nothing.
//
//   dotnet run -c Release --project samples/WarmStart -- --urls http://127.0.0.1:5090
//   fastload manifest show samples/WarmStart/bin/Release/net10.0/WarmStart.startup-manifest
//   fastload prefetch WarmStart.startup-manifest & exec dotnet WarmStart.dll     before the .NET host itself starts
//
// benchmarks/coldstart.sh times it against the template, cold and warm (docs/startup-manifest.md).

using FastLoad;

// The first line of Main: replay the last start's manifest, and record this start.
using StartupPrefetch startup = StartupPrefetch.Begin();

var builder = WebApplication.CreateBuilder(args);

// The start ends when the host has started: the replay stops, and this start's manifest is written 2 s later (its
// first requests count as the start), or when the using declaration above disposes the start, if that comes first.
builder.Services.AddStartupPrefetch(startup);

var app = builder.Build();
app.MapGet("/", () => "Hello World!");
app.Run();
