import TDLCore
