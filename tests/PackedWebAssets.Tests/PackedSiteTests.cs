using System.Net;
using System.Net.Http.Headers;
using System.Text;
using FastLoad;
using Microsoft.AspNetCore.Builder;
using PackedWebAssets;

namespace PackedWebAssets.Tests;

/// <summary>
/// Starts the sample on a loopback port, its site served from a pack of a folder made here, and fetches pages and
/// assets: bytes, content types, ranges, 404s.
/// </summary>
public sealed class PackedSiteTests : IAsyncLifetime
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "fastload-tests", Guid.NewGuid().ToString("N"));
    private readonly Dictionary<string, byte[]> _files = new(StringComparer.Ordinal);
    private WebApplication? _app;
    private HttpClient _client = null!;

    private string Site => Path.Combine(_root, "wwwroot");

    public static TheoryData<string, string> ContentTypes => new()
    {
        { "index.html", "text/html" },
        { "css/site.css", "text/css" },
        { "js/app.js", "text/javascript" },
        { "img/logo.svg", "image/svg+xml" },
        { "img/photo.png", "image/png" },
        { "fonts/body.woff2", "font/woff2" },
        { "data/big.json", "application/json" },
    };

    public async ValueTask InitializeAsync()
    {
        Add("index.html", Encoding.UTF8.GetBytes("<!DOCTYPE html><html><head><link rel=\"stylesheet\" href=\"css/site.css\"></head><body>packed</body></html>"));
        Add("css/site.css", Encoding.UTF8.GetBytes("body { color: #222; }"));
        Add("js/app.js", Encoding.UTF8.GetBytes("console.log('packed');"));
        Add("img/logo.svg", Encoding.UTF8.GetBytes("<svg xmlns=\"http://www.w3.org/2000/svg\"/>"));
        Add("img/photo.png", Random(70_000, seed: 1));
        Add("fonts/body.woff2", Random(4096, seed: 2));
        Add("data/big.json", Encoding.UTF8.GetBytes("[" + string.Join(',', Enumerable.Range(0, 200_000)) + "]"));
        Add("docs/index.html", Encoding.UTF8.GetBytes("<p>docs</p>"));
        Add("empty.txt", []);
        Add(".well-known/security.txt", Encoding.UTF8.GetBytes("Contact: mailto:security@example.com"));
        // Not served: PackFileProvider hides dot-prefixed files by default, as PhysicalFileProvider does.
        File.WriteAllText(Path.Combine(Site, ".env"), "SECRET=1");
        File.WriteAllText(Path.Combine(Site, "css", ".site.css.swp"), "editor leftovers");
        Directory.CreateDirectory(Path.Combine(_root, "settings"));
        await File.WriteAllTextAsync(Path.Combine(_root, "settings", "site.json"), """{ "Site": { "Title": "From the settings pack" } }""");
        await PackWriter.CreateAsync(Path.Combine(_root, "site.fpk"), Site);
        await PackWriter.CreateAsync(Path.Combine(_root, "settings.fpk"), Path.Combine(_root, "settings"));

        _app = await PackedSite.BuildAsync([
            "--pack", Path.Combine(_root, "site.fpk"), "--settings", Path.Combine(_root, "settings.fpk"),
            "--urls", "http://127.0.0.1:0", "--Logging:LogLevel:Default=Warning"]);
        await _app.StartAsync();
        _client = new HttpClient { BaseAddress = new Uri(_app.Urls.Single()), Timeout = TimeSpan.FromSeconds(30) };
    }

    public async ValueTask DisposeAsync()
    {
        _client?.Dispose();
        if (_app is not null)
        {
            await _app.StopAsync();
            await _app.DisposeAsync();
        }

        try
        {
            Directory.Delete(_root, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    [Fact]
    public async Task Get_EveryFile_ReturnsItsBytes()
    {
        foreach ((string name, byte[] expected) in _files)
        {
            using HttpResponseMessage response = await _client.GetAsync(new Uri(name, UriKind.Relative));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(expected, await response.Content.ReadAsByteArrayAsync());
            Assert.Equal(expected.Length, response.Content.Headers.ContentLength);
        }
    }

    [Theory]
    [MemberData(nameof(ContentTypes))]
    public async Task Get_Asset_HasItsContentType(string name, string contentType)
    {
        using HttpResponseMessage response = await _client.GetAsync(new Uri(name, UriKind.Relative));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(contentType, response.Content.Headers.ContentType?.MediaType);
    }

    [Theory]
    [InlineData("/", "index.html")]
    [InlineData("/docs/", "docs/index.html")]
    public async Task Get_Folder_ServesItsDefaultPage(string path, string page)
    {
        using HttpResponseMessage response = await _client.GetAsync(new Uri(path, UriKind.Relative));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(_files[page], await response.Content.ReadAsByteArrayAsync());
        Assert.Equal("text/html", response.Content.Headers.ContentType?.MediaType);
    }

    [Theory]
    [InlineData("/missing.css")]
    [InlineData("/img/missing.png")]
    [InlineData("/img")]
    [InlineData("/img/")]
    [InlineData("/%2e%2e/site.fpk")]
    [InlineData("/img/%2e%2e/%2e%2e/settings.fpk")]
    [InlineData("/site.json")]
    [InlineData("/.env")]
    [InlineData("/css/.site.css.swp")]
    [InlineData("/%2eenv")]
    public async Task Get_MissingOrOutsideTheSite_Is404(string path)
    {
        using HttpResponseMessage response = await _client.GetAsync(new Uri(path, UriKind.Relative));

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
    }

    [Fact]
    public async Task Get_OtherCase_IsServedOnlyWhereTheHostIgnoresCase()
    {
        // The pack's provider follows the host's file system, as PhysicalFileProvider does: Windows and macOS ignore case.
        using HttpResponseMessage response = await _client.GetAsync(new Uri("/IMG/photo.png", UriKind.Relative));

        Assert.Equal(OperatingSystem.IsLinux() ? HttpStatusCode.NotFound : HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task Get_Range_ReturnsThosePartialBytes()
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri("img/photo.png", UriKind.Relative));
        request.Headers.Range = new RangeHeaderValue(65_000, 65_099);

        using HttpResponseMessage response = await _client.SendAsync(request);

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(_files["img/photo.png"].AsSpan(65_000, 100).ToArray(), await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_Head_ReportsTheLengthWithoutABody()
    {
        using var request = new HttpRequestMessage(HttpMethod.Head, new Uri("data/big.json", UriKind.Relative));

        using HttpResponseMessage response = await _client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(_files["data/big.json"].Length, response.Content.Headers.ContentLength);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_About_ReadsTheSettingsFromTheirPack()
    {
        string about = await _client.GetStringAsync(new Uri("about", UriKind.Relative));

        Assert.Contains("From the settings pack", about, StringComparison.Ordinal);
        Assert.Contains("site.fpk", about, StringComparison.Ordinal);
    }

    private void Add(string name, byte[] contents)
    {
        string path = Path.Combine(Site, name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, contents);
        _files.Add(name, contents);
    }

    private static byte[] Random(int length, int seed)
    {
        byte[] bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
