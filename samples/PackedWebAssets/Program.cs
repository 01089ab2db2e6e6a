// PackedWebAssets: an ASP.NET Core minimal app whose wwwroot is served from a FastLoad pack, and whose settings are
// read from another pack by AddJsonFile.
//
//   dotnet run --project samples/PackedWebAssets                   packs wwwroot/ and settings/ beside the app, serves them
//   dotnet run --project samples/PackedWebAssets -- --pack site.fpk --settings settings.fpk --urls http://127.0.0.1:5080
//   dotnet run --project samples/PackedWebAssets -- --loose some/wwwroot     the same site from a folder, for comparison

using Microsoft.AspNetCore.Builder;
using PackedWebAssets;

await using WebApplication app = await PackedSite.BuildAsync(args);
await app.RunAsync();
