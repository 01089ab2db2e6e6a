using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>Someone who can write to the target folder swaps a folder for a link to outside while entries are written.</summary>
public sealed class PackExtractionRaceTests : PackTestBase
{
    [LinuxFact("symbolic links, which Windows makes only with a privilege")]
    public async Task ExtractAsync_FolderSwappedForALinkMeanwhile_NothingLandsOutside()
    {
        for (int i = 0; i < 400; i++)
        {
            WriteFile($"src/dir/f{i:D3}.bin", 64, seed: i);
        }

        await PackWriter.CreateAsync(PackPath, Source);
        string outside = Path.Combine(Root, "outside");
        string target = Path.Combine(Root, "out");
        string folder = Path.Combine(target, "dir");
        string aside = Path.Combine(target, "aside");
        Directory.CreateDirectory(outside);
        string link = Path.Combine(Root, "link");
        File.CreateSymbolicLink(link, outside);

        using var stop = new CancellationTokenSource();
        Task swapper = Task.Factory.StartNew(
            () =>
            {
                // Between its check and its use, a folder by this name is a link to outside as often as not.
                while (!stop.IsCancellationRequested)
                {
                    try
                    {
                        // Each swap is one rename, so the folder is missing only between two system calls.
                        Directory.Move(folder, aside);
                        Directory.Move(link, folder); // renames the link itself
                        Thread.SpinWait(20_000);
                        Directory.Move(folder, link);
                        Directory.Move(aside, folder);
                        Thread.SpinWait(20_000);
                    }
                    catch (IOException)
                    {
                        // The extraction has not made the folder yet, or made a new one in the gap: start over.
                        Restore(folder, aside, link);
                    }
                }
            },
            TaskCreationOptions.LongRunning);

        int refused = 0;
        try
        {
            for (int round = 0; round < 20; round++)
            {
                Directory.CreateDirectory(target);
                await using PackReader reader = await PackReader.OpenAsync(PackPath);
                try
                {
                    await reader.ExtractAsync(target);
                }
                catch (IOException)
                {
                    refused++;
                }

                Assert.Empty(Directory.EnumerateFileSystemEntries(outside));
            }
        }
        finally
        {
            stop.Cancel();
            await swapper;
        }

        Assert.Empty(Directory.EnumerateFileSystemEntries(outside));
        Assert.True(refused > 0, "The swapper never caught an extraction: the test did not race.");
    }

    private static void Restore(string folder, string aside, string link)
    {
        try
        {
            if (!Path.Exists(link) && new FileInfo(folder).LinkTarget is not null)
            {
                Directory.Move(folder, link);
            }

            if (Directory.Exists(aside))
            {
                if (Path.Exists(folder))
                {
                    Directory.Delete(aside, recursive: true);
                }
                else
                {
                    Directory.Move(aside, folder);
                }
            }
        }
        catch (IOException)
        {
            // Raced again: the next failed swap restores.
        }
    }
}
