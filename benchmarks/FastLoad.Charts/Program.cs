using System.Globalization;
using System.Text;
using ScottPlot;

// Draws the benchmark charts from BenchmarkDotNet's CSV exports.
// Usage: dotnet run --project benchmarks/FastLoad.Charts -- <folder with *-report.csv> [<output folder>]
// Reads the plain-number columns the suite adds (MB/s, ops/s, fio MB/s), so no unit parsing is needed.
string input = args.Length >= 1 ? args[0] : "benchmarks/results/bdn/results";
string output = args.Length >= 2 ? args[1] : Path.Combine(Path.GetDirectoryName(Path.GetFullPath(input))!, "charts");
string[] files = Directory.Exists(input) ? Directory.GetFiles(input, "*-report.csv") : [];
if (files.Length == 0)
{
    Console.Error.WriteLine($"no *-report.csv under {input}");
    return 1;
}

Directory.CreateDirectory(output);
Charts.Output = output;
List<Row> rows = [.. files.Order(StringComparer.Ordinal).SelectMany(Report.Read)];
const string FioCaption = "Cold cache. Dashed red line: fio (io_uring, O_DIRECT) on the same files.";

// Many files (seed 001): one panel per size group, horizontal bars, FastLoad highlighted, fio as a line.
List<Row> many = [.. rows.Where(r => r.Type.Contains("ManyFiles", StringComparison.Ordinal) && r.Number("MB/s") is not null)];
if (many.Count > 0)
{
    List<string> groups = Report.GroupOrder(many.Select(r => r["Group"]));
    Charts.Panels("throughput-many-files.png", groups, 1300, 1000, "Many files (seed 001): throughput per scenario and size group (MB/s)", FioCaption, (plot, group) =>
    {
        List<Row> data = [.. many.Where(r => r["Group"] == group).OrderBy(r => r.Number("MB/s"))];
        Charts.HorizontalBars(plot, data.Select(r => r.Method).ToArray(), data.Select(r => r.Number("MB/s")!.Value).ToArray(), data.Select(r => r.Method == "FastLoadAutomatic").ToArray());
        Charts.FioLine(plot, data, vertical: true);
        plot.Title(group);
        plot.XLabel("MB/s");
    });

    Charts.Panels("throughput-vs-parallelism.png", groups, 1200, 800, "Throughput vs degree of parallelism (dotted: fixed scenarios)", FioCaption, (plot, group) =>
    {
        List<Row> data = [.. many.Where(r => r["Group"] == group)];
        foreach (string family in new[] { "AsyncWithMaxParallelCount", "ParallelForEachAsyncTuned" })
        {
            List<(double N, double MBps)> points = [.. data.Where(r => Report.Family(r.Method) == family).Select(r => (N: Report.N(r.Method) ?? 0, MBps: r.Number("MB/s")!.Value)).Where(p => p.N > 0).OrderBy(p => p.N)];
            if (points.Count > 0)
            {
                var line = plot.Add.Scatter(points.Select(p => Math.Log2(p.N)).ToArray(), points.Select(p => p.MBps).ToArray());
                line.LegendText = family;
            }
        }

        foreach (string fixedMethod in new[] { "Sequential", "FastLoadAutomatic", "ParallelForEachAsync" })
        {
            if (data.FirstOrDefault(r => r.Method == fixedMethod)?.Number("MB/s") is { } value)
            {
                var line = plot.Add.HorizontalLine(value);
                line.LinePattern = LinePattern.Dotted;
                line.LegendText = fixedMethod;
                line.Color = fixedMethod == "FastLoadAutomatic" ? Colors.DarkGreen : Colors.Gray;
            }
        }

        Charts.FioLine(plot, data, vertical: false);
        Charts.Log2Ticks(plot.Axes.Bottom, [4, 8, 16, 32, 64, 128, 256]);
        plot.Title(group);
        plot.XLabel("degree of parallelism (log2)");
        plot.YLabel("MB/s");
        plot.ShowLegend(Alignment.LowerRight);
    });
}

// One large file (seed 002).
List<Row> large = [.. rows.Where(r => r.Type.Contains("LargeFile", StringComparison.Ordinal) && !r.Type.Contains("Strategy", StringComparison.Ordinal) && r.Number("MB/s") is not null)];
if (large.Count > 0)
{
    List<string> sizes = [.. large.Select(r => r["SizeMiB"]).Distinct().OrderBy(s => Report.Parse(s) ?? 0)];
    Charts.Panels("throughput-large-file.png", sizes, 1100, 770, "One large file (seed 002)", FioCaption, (plot, size) =>
    {
        List<Row> data = [.. large.Where(r => r["SizeMiB"] == size).OrderBy(r => r.Number("MB/s"))];
        Charts.HorizontalBars(plot, data.Select(r => r.Method).ToArray(), data.Select(r => r.Number("MB/s")!.Value).ToArray(), data.Select(r => r.Method.StartsWith("FastLoad", StringComparison.Ordinal)).ToArray());
        Charts.FioLine(plot, data, vertical: true);
        plot.Title($"{size} MiB");
        plot.XLabel("MB/s");
    });

    Charts.Single("large-file-vs-in-flight.png", 880, 550, "Large file: throughput vs 1 MiB requests in flight", null, plot =>
    {
        foreach (string size in sizes)
        {
            List<(double N, double MBps)> points = [.. large.Where(r => r["SizeMiB"] == size && Report.Family(r.Method) == "AsyncInFlight").Select(r => (N: Report.N(r.Method) ?? 0, MBps: r.Number("MB/s")!.Value)).Where(p => p.N > 0).OrderBy(p => p.N)];
            if (points.Count > 0)
            {
                plot.Add.Scatter(points.Select(p => Math.Log2(p.N)).ToArray(), points.Select(p => p.MBps).ToArray()).LegendText = $"{size} MiB";
            }
        }

        Charts.Log2Ticks(plot.Axes.Bottom, [1, 2, 4, 8, 16]);
        plot.XLabel("requests in flight (log2)");
        plot.YLabel("MB/s");
        plot.ShowLegend();
    });
}

// One file vs many (seed 000): 64 MiB in total.
List<Row> layout = [.. rows.Where(r => r.Type.Contains("OneVsMany", StringComparison.Ordinal) && r.Number("MB/s") is not null)];
if (layout.Count > 0)
{
    Charts.Single("one-vs-many.png", 990, 550, "One file vs many (seed 000): 64 MiB in total", null, plot =>
    {
        List<string> layouts = [.. layout.Select(r => r["FileCount"]).Distinct().OrderBy(c => Report.Parse(c) ?? 0)];
        List<string> methods = [.. layout.Select(r => r.Method).Distinct()];
        var bars = new List<Bar>();
        for (int l = 0; l < layouts.Count; l++)
        {
            for (int m = 0; m < methods.Count; m++)
            {
                if (layout.FirstOrDefault(r => r["FileCount"] == layouts[l] && r.Method == methods[m])?.Number("MB/s") is { } value)
                {
                    bars.Add(new Bar { Position = (l * (methods.Count + 1)) + m, Value = value, FillColor = Charts.Palette[m % Charts.Palette.Length] });
                }
            }
        }

        plot.Add.Bars(bars);
        double[] centres = [.. layouts.Select((_, l) => (l * (methods.Count + 1)) + ((methods.Count - 1) / 2.0))];
        plot.Axes.Bottom.SetTicks(centres, [.. layouts.Select(c => $"{c} x {64 / (Report.Parse(c) ?? 1):0.###} MiB")]);
        for (int m = 0; m < methods.Count; m++)
        {
            plot.Legend.ManualItems.Add(new LegendItem { LabelText = methods[m], FillColor = Charts.Palette[m % Charts.Palette.Length] });
        }

        plot.ShowLegend(Alignment.UpperLeft);
        plot.YLabel("MB/s");
        plot.Axes.Margins(bottom: 0, top: 0.25);
    });
}

// Read size vs order (seed 004): log-log.
List<Row> readSizes = [.. rows.Where(r => r.Type.Contains("ReadSize", StringComparison.Ordinal) && r.Number("ops/s") is not null)];
if (readSizes.Count > 0)
{
    Charts.Single("read-size.png", 880, 550, "Read size vs order (seed 004): reads per second, one at a time", null, plot =>
    {
        foreach (IGrouping<string, Row> method in readSizes.GroupBy(r => r.Method))
        {
            List<Row> points = [.. method.Where(r => Report.Parse(r["ReadSize"]) is > 0).OrderBy(r => Report.Parse(r["ReadSize"]))];
            plot.Add.Scatter(points.Select(r => Math.Log10(Report.Parse(r["ReadSize"])!.Value)).ToArray(), points.Select(r => Math.Log10(r.Number("ops/s")!.Value)).ToArray()).LegendText = method.Key;
        }

        Charts.Log10Ticks(plot.Axes.Bottom);
        Charts.Log10Ticks(plot.Axes.Left);
        plot.XLabel("read size (bytes, log)");
        plot.YLabel("reads/s (log)");
        plot.ShowLegend(Alignment.UpperRight);
    });
}

// Automatic parallelism against fixed depths: one panel per set.
List<Row> adaptive = [.. rows.Where(r => r.Type.Contains("AdaptiveParallelism", StringComparison.Ordinal) && r.Number("Median [ms]") is not null)];
if (adaptive.Count > 0)
{
    List<string> sets = [.. adaptive.Select(r => r["Set"]).Distinct()];
    Charts.Panels("adaptive-parallelism.png", sets, 1320, 550, "Automatic parallelism against fixed depths (lower is better)", "Cold cache. Dashed: automatic, and the seeds' rule (cores x 4).", (plot, set) =>
    {
        List<Row> data = [.. adaptive.Where(r => r["Set"] == set)];
        List<Row> fixedDepths = [.. data.Where(r => Report.Parse(r["Depth"]) is > 0).OrderBy(r => Report.Parse(r["Depth"]))];
        var line = plot.Add.Scatter(fixedDepths.Select(r => Math.Log2(Report.Parse(r["Depth"])!.Value)).ToArray(), fixedDepths.Select(r => r.Number("Median [ms]")!.Value).ToArray());
        line.Color = Colors.Gray;
        line.LegendText = "fixed depth";
        int colour = 0;
        foreach (Row rule in data.Where(r => r["Depth"] is "auto" or "cores x 4"))
        {
            var ruleLine = plot.Add.HorizontalLine(rule.Number("Median [ms]")!.Value);
            ruleLine.LinePattern = LinePattern.Dashed;
            ruleLine.Color = Charts.Palette[colour++ % Charts.Palette.Length];
            ruleLine.LegendText = rule["Depth"];
        }

        Charts.Log2Ticks(plot.Axes.Bottom, [1, 2, 4, 8, 16, 32, 64, 128]);
        plot.Axes.SetLimitsY(0, (data.Max(r => r.Number("Median [ms]")) ?? 1) * 1.1);
        plot.Title(set);
        plot.XLabel("fixed degree of parallelism (log2)");
        plot.YLabel("median ms");
        plot.ShowLegend(Alignment.UpperRight);
    });
}

return 0;

/// <summary>One row of a BenchmarkDotNet CSV report: its columns by header name, and the benchmark class it came from.</summary>
internal sealed record Row(string Type, Dictionary<string, string> Columns)
{
    public string this[string column] => Columns.TryGetValue(column, out string? value) ? value : string.Empty;

    public string Method => this["Method"];

    public double? Number(string column) => Report.Parse(this[column]);
}

/// <summary>Reads the CSV exports and takes scenario names apart.</summary>
internal static class Report
{
    public static IEnumerable<Row> Read(string path)
    {
        List<List<string>> records = ParseCsv(File.ReadAllText(path));
        if (records.Count < 2)
        {
            yield break;
        }

        List<string> header = records[0];
        // A joined summary has a Type column; a per-class report is named after its class.
        string type = Path.GetFileName(path).Replace("-report.csv", string.Empty, StringComparison.Ordinal).Split('.')[^1];
        foreach (List<string> record in records.Skip(1))
        {
            var columns = new Dictionary<string, string>(StringComparer.Ordinal);
            for (int i = 0; i < header.Count && i < record.Count; i++)
            {
                columns[header[i]] = record[i];
            }

            yield return new Row(columns.TryGetValue("Type", out string? own) && own.Length > 0 ? own : type, columns);
        }
    }

    /// <summary>Invariant-culture numbers still group thousands ("1,105.5"); "NA", "-" and empty cells are no number.</summary>
    public static double? Parse(string text) =>
        double.TryParse(text.Replace(",", string.Empty, StringComparison.Ordinal).Trim(), NumberStyles.Float, CultureInfo.InvariantCulture, out double value) ? value : null;

    /// <summary>Scenarios swept over N are one method per N (AsyncWithMaxParallelCount32): the family is the name without N.</summary>
    public static string Family(string method) => method.TrimEnd("0123456789".ToCharArray());

    public static double? N(string method) => Parse(method[Family(method).Length..]);

    public static List<string> GroupOrder(IEnumerable<string> groups)
    {
        string[] known = ["1B", "1KB", "10KB", "100KB", "1MB"];
        List<string> present = [.. groups.Distinct()];
        return [.. known.Where(present.Contains), .. present.Where(g => !known.Contains(g))];
    }

    /// <summary>RFC 4180: fields separated by commas, quoted when they hold commas, quotes or line breaks.</summary>
    private static List<List<string>> ParseCsv(string text)
    {
        var records = new List<List<string>>();
        var record = new List<string>();
        var field = new StringBuilder();
        bool quoted = false;
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            if (quoted)
            {
                if (c == '"' && i + 1 < text.Length && text[i + 1] == '"')
                {
                    field.Append('"');
                    i++;
                }
                else if (c == '"')
                {
                    quoted = false;
                }
                else
                {
                    field.Append(c);
                }
            }
            else if (c == '"')
            {
                quoted = true;
            }
            else if (c == ',')
            {
                record.Add(field.ToString());
                field.Clear();
            }
            else if (c == '\n')
            {
                record.Add(field.ToString().TrimEnd('\r'));
                field.Clear();
                records.Add(record);
                record = [];
            }
            else
            {
                field.Append(c);
            }
        }

        if (field.Length > 0 || record.Count > 0)
        {
            record.Add(field.ToString());
            records.Add(record);
        }

        return records;
    }
}

/// <summary>Chart building blocks on ScottPlot.</summary>
internal static class Charts
{
    public static readonly Color[] Palette = [Colors.SteelBlue, Colors.DarkOrange, Colors.SeaGreen, Colors.FireBrick, Colors.MediumPurple, Colors.SaddleBrown, Colors.HotPink, Colors.Gray];

    private static readonly Color Fio = Colors.FireBrick;

    public static string Output { get; set; } = ".";

    /// <summary>One panel per key in a grid, each with the key as its title; the figure title and caption go above and below.</summary>
    public static void Panels(string name, List<string> keys, int width, int height, string title, string caption, Action<Plot, string> draw)
    {
        int columns = keys.Count <= 3 ? keys.Count : (int)Math.Ceiling(Math.Sqrt(keys.Count));
        int rows = (int)Math.Ceiling(keys.Count / (double)columns);
        var multiplot = new Multiplot();
        multiplot.AddPlots(keys.Count);
        for (int i = 0; i < keys.Count; i++)
        {
            draw(multiplot.GetPlot(i), keys[i]);
        }

        multiplot.Layout = new ScottPlot.MultiplotLayouts.Grid(rows, columns);
        Save(name, width, height, title, caption, (path, w, h) => multiplot.SavePng(path, w, h));
    }

    public static void Single(string name, int width, int height, string title, string? caption, Action<Plot> draw)
    {
        var plot = new Plot();
        draw(plot);
        Save(name, width, height, title, caption, (path, w, h) => plot.SavePng(path, w, h));
    }

    /// <summary>Bars from the bottom up, labelled with <paramref name="labels"/>; highlighted ones in orange.</summary>
    public static void HorizontalBars(Plot plot, string[] labels, double[] values, bool[] highlighted)
    {
        Bar[] bars = [.. values.Select((value, i) => new Bar { Position = i, Value = value, FillColor = highlighted[i] ? Colors.DarkOrange : Colors.SteelBlue })];
        plot.Add.Bars(bars).Horizontal = true;
        plot.Axes.Left.SetTicks([.. Enumerable.Range(0, labels.Length).Select(i => (double)i)], labels);
        plot.Axes.Margins(left: 0);
    }

    /// <summary>The fio throughput of the same files, where the report has it: a dashed red line.</summary>
    public static void FioLine(Plot plot, List<Row> data, bool vertical)
    {
        if (data.Select(r => r.Number("fio MB/s")).FirstOrDefault(v => v is not null) is { } fio)
        {
            var line = vertical ? (ScottPlot.Plottables.AxisLine)plot.Add.VerticalLine(fio) : plot.Add.HorizontalLine(fio);
            line.LinePattern = LinePattern.Dashed;
            line.Color = Fio;
            line.LegendText = "fio";
        }
    }

    /// <summary>Values were plotted as log2(x): ticks at the given x, labelled with x.</summary>
    public static void Log2Ticks(IAxis axis, double[] at) =>
        axis.SetTicks([.. at.Select(Math.Log2)], [.. at.Select(x => x.ToString(CultureInfo.InvariantCulture))]);

    /// <summary>Values were plotted as log10(x): ticks at the powers of ten.</summary>
    public static void Log10Ticks(IAxis axis)
    {
        double[] at = [.. Enumerable.Range(0, 10)];
        axis.SetTicks(at, [.. at.Select(e => Math.Pow(10, e).ToString("#,0", CultureInfo.InvariantCulture))]);
    }

    /// <summary>Renders the chart below a title band and above a caption band.</summary>
    private static void Save(string name, int width, int height, string title, string? caption, Action<string, int, int> render)
    {
        const int Band = 36;
        string body = Path.Combine(Output, $".{name}.body.png");
        render(body, width, height - (2 * Band));
        using var surface = SkiaSharp.SKSurface.Create(new SkiaSharp.SKImageInfo(width, height));
        SkiaSharp.SKCanvas canvas = surface.Canvas;
        canvas.Clear(SkiaSharp.SKColors.White);
        using (var bitmap = SkiaSharp.SKBitmap.Decode(body))
        {
            canvas.DrawBitmap(bitmap, 0, Band);
        }

        File.Delete(body);

        using var font = new SkiaSharp.SKFont(SkiaSharp.SKTypeface.Default, 18);
        using var paint = new SkiaSharp.SKPaint { Color = SkiaSharp.SKColors.Black, IsAntialias = true };
        canvas.DrawText(title, 12, 24, font, paint);
        if (caption is not null)
        {
            using var small = new SkiaSharp.SKFont(SkiaSharp.SKTypeface.Default, 13);
            canvas.DrawText(caption, 12, height - 12, small, paint);
        }

        string path = Path.Combine(Output, name);
        using (SkiaSharp.SKImage image = surface.Snapshot())
        using (SkiaSharp.SKData png = image.Encode(SkiaSharp.SKEncodedImageFormat.Png, 100))
        using (FileStream file = File.Create(path))
        {
            png.SaveTo(file);
        }

        Console.WriteLine($"wrote {path}");
    }
}
