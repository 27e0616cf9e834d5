"""The numerical methods the steps of a study use; none of them knows a study."""
