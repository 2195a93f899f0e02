module guomi.test/interop/gmtlspeer

go 1.25.0

require github.com/tjfoc/gmsm v1.4.1

require (
	golang.org/x/crypto v0.0.0-20201012173705-84dcc777aaee // indirect
	golang.org/x/sys v0.0.0-20200930185726-fdedc70b468f // indirect
)
