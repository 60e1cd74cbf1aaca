module github.com/memplan/memplan

go 1.26.8
