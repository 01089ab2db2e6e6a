using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>Packs written at the same time to one target each write a partial file of their own.</summary>
public sealed class PackWriterConcurrencyTests : PackTestBase
{
    [NotUnderWineFact("two renames onto one pack at once: Wine's MoveFileEx refuses one with access denied (not tried on Windows)")]
    public async Task CreateAsync_TwoWritersToOneTarget_BothSucceedAndThePackIsOneOfThemWhole()
    {
        var first = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        var second = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        for (int i = 0; i < 200; i++)
        {
            first.Add($"f{i}.bin", Contents(20_000, seed: i));
            second.Add($"f{i}.bin", Contents(20_000, seed: 1000 + i));
            WriteFile($"a/f{i}.bin", first[$"f{i}.bin"]);
            WriteFile($"b/f{i}.bin", second[$"f{i}.bin"]);
        }

        for (int round = 0; round < 5; round++)
        {
            using var start = new Barrier(2);
            Task Write(string folder) => Task.Run(async () =>
            {
                start.SignalAndWait();
                await PackWriter.CreateAsync(PackPath, Path.Combine(Root, folder), new PackOptions { BlockSize = SmallBlock });
            });

            await Task.WhenAll(Write("a"), Write("b"));

            Dictionary<string, byte[]> packed = await LoadAllAsync(PackPath);
            Assert.True(Same(packed, first) || Same(packed, second), "The pack is neither writer's whole output.");
            Assert.Equal([Path.GetFileName(PackPath)], Directory.GetFiles(Root).Select(Path.GetFileName));
        }
    }

    private static bool Same(Dictionary<string, byte[]> actual, Dictionary<string, byte[]> expected) =>
        actual.Count == expected.Count && expected.All(pair => actual.TryGetValue(pair.Key, out byte[]? bytes) && bytes.AsSpan().SequenceEqual(pair.Value));
}
