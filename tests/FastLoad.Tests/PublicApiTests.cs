using System.Reflection;
using System.Text;

namespace FastLoad.Tests;

/// <summary>
/// Tracks the public API the way PublicApiAnalyzers would (that package is not on our feed): every public type and
/// member of each library, one line each, must match src/{library}/PublicAPI.Shipped.txt + PublicAPI.Unshipped.txt.
/// After an intended change, run the tests with FASTLOAD_UPDATE_PUBLIC_API=1 to rewrite PublicAPI.Unshipped.txt.
/// </summary>
public class PublicApiTests
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    public static TheoryData<string> Libraries => ["FastLoad", "FastLoad.Hosting"];

    [Theory]
    [MemberData(nameof(Libraries))]
    public void PublicApi_MatchesTheTrackedFiles(string library)
    {
        string directory = Path.Combine(RepositoryRoot(), "src", library);
        string shippedPath = Path.Combine(directory, "PublicAPI.Shipped.txt");
        string unshippedPath = Path.Combine(directory, "PublicAPI.Unshipped.txt");
        var shipped = ReadLines(shippedPath);
        List<string> actual = Describe(Assembly.Load(library));

        if (Environment.GetEnvironmentVariable("FASTLOAD_UPDATE_PUBLIC_API") == "1")
        {
            File.WriteAllLines(unshippedPath, actual.Where(line => !shipped.Contains(line)));
        }

        var tracked = shipped.Concat(ReadLines(unshippedPath)).ToHashSet(StringComparer.Ordinal);
        var added = actual.Where(line => !tracked.Contains(line)).ToList();
        var removed = tracked.Where(line => !actual.Contains(line)).Order(StringComparer.Ordinal).ToList();
        Assert.True(added.Count == 0 && removed.Count == 0, new StringBuilder()
            .AppendLine("The public API changed. If that is intended, run the tests with FASTLOAD_UPDATE_PUBLIC_API=1.")
            .AppendLine("Not tracked: " + string.Join(Environment.NewLine + "  ", added.Prepend(string.Empty)))
            .AppendLine("Gone: " + string.Join(Environment.NewLine + "  ", removed.Prepend(string.Empty)))
            .ToString());
    }

    private static List<string> Describe(Assembly assembly)
    {
        var lines = new List<string>();
        foreach (Type type in assembly.GetExportedTypes())
        {
            lines.Add($"{Kind(type)} {type.FullName}{(type.BaseType is { } b && b != typeof(object) && b != typeof(Enum) && b != typeof(ValueType) ? " : " + b.FullName : string.Empty)}");
            foreach (MemberInfo member in type.GetMembers(Declared))
            {
                if (member is MethodInfo { IsSpecialName: true } || (member is MethodBase method && !(method.IsPublic || method.IsFamily)))
                {
                    continue; // Property and event accessors appear as their property or event.
                }

                lines.Add($"{type.FullName}.{Describe(member)}");
            }
        }

        lines.Sort(StringComparer.Ordinal);
        return lines;
    }

    private static string Describe(MemberInfo member) => member switch
    {
        ConstructorInfo c => $".ctor({Parameters(c)})",
        MethodInfo m => $"{(m.IsStatic ? "static " : string.Empty)}{m.Name}({Parameters(m)}) -> {m.ReturnType}",
        PropertyInfo p => $"{p.Name} {{ {(p.GetMethod?.IsPublic == true ? "get; " : string.Empty)}{(p.SetMethod?.IsPublic == true ? "set; " : string.Empty)}}} -> {p.PropertyType}",
        FieldInfo f => $"{(f.IsLiteral ? "const " : f.IsStatic ? "static " : string.Empty)}{f.Name} -> {f.FieldType}{(f.IsLiteral ? " = " + f.GetRawConstantValue() : string.Empty)}",
        EventInfo e => $"event {e.Name} -> {e.EventHandlerType}",
        Type nested => $"nested {nested.Name}",
        _ => member.ToString() ?? member.Name,
    };

    private static string Parameters(MethodBase method) =>
        string.Join(", ", method.GetParameters().Select(p => $"{p.ParameterType} {p.Name}{(p.HasDefaultValue ? " = " + (p.DefaultValue ?? "null") : string.Empty)}"));

    private static string Kind(Type type) =>
        type.IsEnum ? "enum" : type.IsValueType ? "struct" : type.IsInterface ? "interface" : type.IsAbstract && type.IsSealed ? "static class" : type.IsSealed ? "sealed class" : "class";

    private static HashSet<string> ReadLines(string path) =>
        File.Exists(path) ? File.ReadAllLines(path).Where(line => line.Length > 0).ToHashSet(StringComparer.Ordinal) : [];

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "FastLoad.sln")))
            {
                return directory.FullName;
            }
        }

        throw new DirectoryNotFoundException("FastLoad.sln not found above the test binaries.");
    }
}
