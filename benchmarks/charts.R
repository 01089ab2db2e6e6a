#!/usr/bin/env Rscript
# Draws the benchmark charts from BenchmarkDotNet's CSV exports (ggplot2).
# Usage: Rscript benchmarks/charts.R <folder with *-report.csv> [<output folder>]
# Reads the plain-number columns the suite adds (MB/s, ops/s, fio MB/s), so no unit parsing is needed.
suppressPackageStartupMessages(library(ggplot2))

args <- commandArgs(trailingOnly = TRUE)
input <- if (length(args) >= 1) args[1] else "benchmarks/results/bdn/results"
output <- if (length(args) >= 2) args[2] else file.path(dirname(input), "charts")
dir.create(output, showWarnings = FALSE, recursive = TRUE)

read_report <- function(path) {
  data <- read.csv(path, check.names = FALSE, stringsAsFactors = FALSE)
  # A joined summary has a Type column; a per-class report is named after its class.
  if (!"Type" %in% names(data)) {
    data$Type <- sub("^.*\\.", "", sub("-report\\.csv$", "", basename(path)))
  }
  data
}

files <- list.files(input, pattern = "-report\\.csv$", full.names = TRUE)
if (length(files) == 0) stop(paste("no *-report.csv under", input))
reports <- lapply(files, read_report)
columns <- unique(unlist(lapply(reports, names)))
all <- do.call(rbind, lapply(reports, function(data) {
  for (column in setdiff(columns, names(data))) data[[column]] <- NA
  data[columns]
}))
# Invariant-culture numbers still group thousands ("1,105.5").
number <- function(x) suppressWarnings(as.numeric(gsub(",", "", as.character(x), fixed = TRUE)))
all$mbps <- number(all[["MB/s"]])
all$opsps <- number(all[["ops/s"]])
all$fio <- number(all[["fio MB/s"]])

save <- function(plot, name, width = 10, height = 7) {
  ggsave(file.path(output, name), plot, width = width, height = height, dpi = 110)
  cat("wrote", file.path(output, name), "\n")
}
# Scenarios swept over N are one method per N (AsyncWithMaxParallelCount32): split family and N.
family <- function(method) sub("[0-9]+$", "", method)
n_of <- function(method) suppressWarnings(as.numeric(sub("^.*?([0-9]+)$", "\\1", method, perl = TRUE)))
fio_lines <- function(data, facet) {
  lines <- unique(data[!is.na(data$fio), c(facet, "fio")])
  if (nrow(lines) == 0) NULL else geom_hline(data = lines, aes(yintercept = fio), linetype = "dashed", colour = "firebrick")
}
caption <- "Cold cache. Dashed red line: fio (io_uring, O_DIRECT) on the same files."

many <- all[grepl("ManyFiles", all$Type) & !is.na(all$mbps), ]
if (nrow(many) > 0) {
  many$Group <- factor(many$Group, levels = unique(c("1B", "1KB", "10KB", "100KB", "1MB", many$Group)))
  save(ggplot(many, aes(x = reorder(Method, mbps), y = mbps, fill = Method == "FastLoadAutomatic")) +
         geom_col(show.legend = FALSE) + fio_lines(many, "Group") + coord_flip() +
         facet_wrap(~Group, scales = "free_x") +
         labs(title = "Many files (seed 001): throughput per scenario and size group", x = NULL, y = "MB/s", caption = caption),
       "throughput-many-files.png", 13, 10)

  dop <- many[family(many$Method) %in% c("AsyncWithMaxParallelCount", "ParallelForEachAsyncTuned"), ]
  dop$dop <- n_of(dop$Method)
  dop$Family <- family(dop$Method)
  reference <- many[many$Method %in% c("Sequential", "FastLoadAutomatic", "ParallelForEachAsync"), c("Group", "Method", "mbps")]
  save(ggplot(dop, aes(x = dop, y = mbps, colour = Family)) + geom_line() + geom_point() +
         geom_hline(data = reference, aes(yintercept = mbps, colour = Method), linetype = "dotted") +
         labs(colour = NULL) +
         fio_lines(many, "Group") + scale_x_continuous(trans = "log2", breaks = c(4, 8, 16, 32, 64, 128, 256)) +
         facet_wrap(~Group, scales = "free_y") +
         labs(title = "Throughput vs degree of parallelism (dotted: fixed scenarios)", x = "degree of parallelism (log2)", y = "MB/s", caption = caption),
       "throughput-vs-parallelism.png", 12, 8)
}

large <- all[grepl("LargeFile", all$Type) & !is.na(all$mbps), ]
if (nrow(large) > 0) {
  large$Size <- paste(large$SizeMiB, "MiB")
  save(ggplot(large, aes(x = reorder(Method, mbps), y = mbps)) + geom_col(fill = "steelblue") +
         fio_lines(large, "Size") + coord_flip() + facet_wrap(~Size) +
         labs(title = "One large file (seed 002)", x = NULL, y = "MB/s", caption = caption),
       "throughput-large-file.png")
  inflight <- large[family(large$Method) == "AsyncInFlight", ]
  inflight$n <- n_of(inflight$Method)
  save(ggplot(inflight, aes(x = n, y = mbps, colour = Size)) + geom_line() + geom_point() +
         scale_x_continuous(trans = "log2", breaks = c(1, 2, 4, 8, 16)) +
         labs(title = "Large file: throughput vs 1 MiB requests in flight", x = "requests in flight (log2)", y = "MB/s"),
       "large-file-vs-in-flight.png", 8, 5)
}

layout <- all[grepl("OneVsMany", all$Type) & !is.na(all$mbps), ]
if (nrow(layout) > 0) {
  layout$Layout <- factor(paste0(layout$FileCount, " x ", 64 / number(layout$FileCount), " MiB"))
  save(ggplot(layout, aes(x = Layout, y = mbps, fill = Method)) + geom_col(position = "dodge") +
         labs(title = "One file vs many (seed 000): 64 MiB in total", x = NULL, y = "MB/s"),
       "one-vs-many.png", 9, 5)
}

sizes <- all[grepl("ReadSize", all$Type) & !is.na(all$opsps), ]
if (nrow(sizes) > 0) {
  sizes$bytes <- number(sizes$ReadSize)
  save(ggplot(sizes, aes(x = bytes, y = opsps, colour = Method)) + geom_line() + geom_point() +
         scale_x_log10() + scale_y_log10() +
         labs(title = "Read size vs order (seed 004): reads per second, one at a time", x = "read size (bytes, log)", y = "reads/s (log)"),
       "read-size.png", 8, 5)
}

adaptive <- all[grepl("AdaptiveParallelism", all$Type), ]
if (nrow(adaptive) > 0) {
  adaptive$ms <- number(adaptive[["Median [ms]"]])
  fixed <- adaptive[grepl("^[0-9]+$", adaptive$Depth), ]
  fixed$depth <- number(fixed$Depth)
  rules <- adaptive[adaptive$Depth %in% c("auto", "cores x 4"), ]
  save(ggplot(fixed, aes(x = depth, y = ms)) + geom_line(colour = "grey40") + geom_point(colour = "grey40") +
         geom_hline(data = rules, aes(yintercept = ms, colour = Depth), linetype = "dashed") +
         scale_x_continuous(trans = "log2", breaks = c(1, 2, 4, 8, 16, 32, 64, 128)) +
         expand_limits(y = 0) + facet_wrap(~Set, scales = "free_y") +
         labs(title = "Automatic parallelism against fixed depths (lower is better)", x = "fixed degree of parallelism (log2)",
              y = "median ms", colour = NULL, caption = "Cold cache. Dashed: automatic, and the seeds' rule (cores x 4)."),
       "adaptive-parallelism.png", 12, 5)
}
