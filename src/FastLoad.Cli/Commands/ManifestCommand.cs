using System.Globalization;
using System.CommandLine;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload manifest show &lt;manifest&gt;</c>: what a start-up manifest lists, and which of its files changed since.</summary>
internal static class ManifestCommand
{
    /// <summary>The C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional embeddings, overrides and isolates.</summary>
    private static readonly System.Buffers.SearchValues<char> Unprintable = System.Buffers.SearchValues.Create(
        [.. Enumerable.Range(0, 0x20).Concat(Enumerable.Range(0x7f, 0x21)).Concat([0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
            0x2066, 0x2067, 0x2068, 0x2069]).Select(code => (char)code)]);

    public static Command Create()
    {
        var manifest = new Argument<string>("manifest") { Description = "The start-up manifest." };
        var json = new Option<bool>("--json") { Description = "Print one JSON object instead of text." };
        var show = new Command(
            "show",
            "Print a start-up manifest: the build that recorded it, then each file with its bytes, ranges and whether it is still "
            + "as recorded (current), changed or missing. Exit code 1 if the manifest is missing or not valid.")
        {
            manifest, json,
        };
        show.SetAction(parse => Show(parse.GetValue(manifest)!, parse.GetValue(json)));
        return new Command("manifest", "Start-up manifests (StartupPrefetch): see what one holds.") { show };
    }

    private static int Show(string path, bool json)
    {
        StartupManifest manifest;
        try
        {
            manifest = StartupManifest.Read(path);
        }
        catch (Exception ex) when (ex is IOException or InvalidDataException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.SomeFailed;
        }

        if (json)
        {
            WriteJson(path, manifest);
        }
        else
        {
            Console.WriteLine($"manifest   {Printable(Path.GetFullPath(path))}");
            Console.WriteLine($"build      {Printable(manifest.BuildKey)}");
            Console.WriteLine($"files      {manifest.Files.Count:N0}");
            Console.WriteLine($"ranges     {manifest.RangeCount:N0}");
            Console.WriteLine($"bytes      {manifest.ByteCount:N0}");
            Console.WriteLine();
            Console.WriteLine($"{"bytes",14} {"of length",14} {"ranges",7} {"first use",9}  {"state",-8} path");
            foreach (StartupManifestFile file in manifest.Files)
            {
                string firstUse = file.FirstUse > 0 ? file.FirstUse.ToString("N0", CultureInfo.CurrentCulture) : "-";
                Console.WriteLine($"{file.ByteCount,14:N0} {file.Length,14:N0} {file.Ranges.Count,7:N0} {firstUse,9}  {StateOf(file),-8} {Printable(file.Path)}");
            }
        }

        return ExitCodes.Success;
    }

    /// <summary>
    /// <paramref name="text"/> with each control character and each bidirectional override written as an escape
    /// (<c>\x1b</c>, <c>\u202e</c>): a manifest is a file anyone may have written, and a path in it must not move the
    /// cursor, retitle the terminal or show itself reversed.
    /// </summary>
    internal static string Printable(string text)
    {
        int first = text.AsSpan().IndexOfAny(Unprintable);
        if (first < 0)
        {
            return text;
        }

        var printable = new System.Text.StringBuilder(text.Length + 16).Append(text, 0, first);
        foreach (char c in text.AsSpan(first))
        {
            if (!Unprintable.Contains(c))
            {
                printable.Append(c);
            }
            else if (c <= 0xff)
            {
                printable.Append(CultureInfo.InvariantCulture, $"\\x{(int)c:x2}");
            }
            else
            {
                printable.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}");
            }
        }

        return printable.ToString();
    }

    /// <summary>Whether the file is still the version recorded (what a replay checks before reading it).</summary>
    private static string StateOf(StartupManifestFile file)
    {
        var info = new FileInfo(file.Path);
        if (!info.Exists)
        {
            return "missing";
        }

        return info.Length == file.Length && info.LastWriteTimeUtc == file.LastWriteTimeUtc ? "current" : "changed";
    }

    private static void WriteJson(string path, StartupManifest manifest)
    {
        using var stream = Console.OpenStandardOutput();
        using (var writer = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            writer.WriteStartObject();
            writer.WriteString("manifest", Path.GetFullPath(path));
            writer.WriteString("build", manifest.BuildKey);
            writer.WriteNumber("files", manifest.Files.Count);
            writer.WriteNumber("ranges", manifest.RangeCount);
            writer.WriteNumber("bytes", manifest.ByteCount);
            writer.WriteStartArray("entries");
            foreach (StartupManifestFile file in manifest.Files)
            {
                writer.WriteStartObject();
                writer.WriteString("path", file.Path);
                writer.WriteNumber("length", file.Length);
                writer.WriteString("lastWriteTimeUtc", file.LastWriteTimeUtc);
                writer.WriteNumber("bytes", file.ByteCount);
                if (file.FirstUse > 0)
                {
                    writer.WriteNumber("firstUse", file.FirstUse);
                }
                else
                {
                    writer.WriteNull("firstUse");
                }

                writer.WriteString("state", StateOf(file));
                writer.WriteStartArray("ranges");
                foreach (StartupManifestRange range in file.Ranges)
                {
                    writer.WriteStartArray();
                    writer.WriteNumberValue(range.Offset);
                    writer.WriteNumberValue(range.Length);
                    writer.WriteEndArray();
                }

                writer.WriteEndArray();
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        stream.WriteByte((byte)'\n');
    }
}
