"""The study layer: experiment files run as chunked, resumable Parquet datasets (local or Dask),
tournaments between policies, HTML reports and automatic balancing. Each CLI command has its
module ``cli_<command>.py``; the work itself lives in the modules they call.
"""
