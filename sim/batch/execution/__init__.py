"""Fighting a study's runs: one run and one chunk on a worker, the executors, the progress bar."""
