using FastLoad;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.Hosting;

namespace PackedWebAssets;

/// <summary>Builds the app; the tests and the timing harness start it the same way the program does.</summary>
public static class PackedSite
{
    /// <summary>
    /// Builds the app from its command line: <c>--pack</c> (the site's pack) or <c>--loose</c> (the site's folder),
    /// <c>--settings</c> (a pack holding <c>site.json</c>), and every usual ASP.NET Core option (<c>--urls</c>, ...).
    /// </summary>
    public static async Task<WebApplication> BuildAsync(string[] args)
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });

        // The site: a pack mounted as a named IFileProvider (or the loose folder, to compare).
        IFileProvider site = builder.Configuration["loose"] is { } loose
            ? new PhysicalFileProvider(Path.GetFullPath(loose))
            : await builder.AddFastLoadPackAsync("site", builder.Configuration["pack"] ?? await PackBesideTheAppAsync("wwwroot"));
        builder.Environment.WebRootFileProvider = site;

        // Settings read from a pack, as AddJsonFile reads them from a folder.
        PackFileProvider settings = await builder.AddFastLoadPackAsync("settings", builder.Configuration["settings"] ?? await PackBesideTheAppAsync("settings"));
        builder.Configuration.AddJsonFile(settings, "site.json", optional: false, reloadOnChange: false);

        WebApplication app = builder.Build();
        app.UseDefaultFiles(new DefaultFilesOptions { FileProvider = site });
        app.UseStaticFiles(new StaticFileOptions { FileProvider = site });
        app.MapGet("/about", (IConfiguration configuration) => Results.Json(new
        {
            title = configuration["Site:Title"],
            servedFrom = site is PackFileProvider pack ? pack.Reader.Path : "folder",
        }));
        return app;
    }

    // The first start packs the folder shipped beside the app; later starts find the pack.
    private static async Task<string> PackBesideTheAppAsync(string folder)
    {
        string pack = Path.Combine(AppContext.BaseDirectory, folder + ".fpk");
        if (!File.Exists(pack))
        {
            // Requests read one asset at a time, and each decodes the whole block it lies in: small blocks decode less.
            await PackWriter.CreateAsync(pack, Path.Combine(AppContext.BaseDirectory, folder), new PackOptions { BlockSize = 64 * 1024 });
        }

        return pack;
    }
}
